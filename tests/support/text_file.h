// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Reading a whole text file, such as a child process's log.
#ifndef KHET_TESTS_SUPPORT_TEXT_FILE_H_
#define KHET_TESTS_SUPPORT_TEXT_FILE_H_

#include <string>

namespace khet {

// The contents of the file at `path`; "" if it cannot be read.
std::string ReadTextFile(const std::string& path);

}  // namespace khet

#endif  // KHET_TESTS_SUPPORT_TEXT_FILE_H_
