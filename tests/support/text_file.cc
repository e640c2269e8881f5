// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/support/text_file.h"

#include <fstream>
#include <sstream>

namespace khet {

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace khet
