// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The files of clients/web/ and the in-world board's, built into the binary
// (embed_web_assets.cmake writes their bytes into a generated source file), so
// that khetd serves the web board without an install directory.
#ifndef KHET_SERVICE_HTTP_WEB_ASSETS_H_
#define KHET_SERVICE_HTTP_WEB_ASSETS_H_

#include <vector>

#include "absl/strings/string_view.h"

namespace khet {

struct WebAsset {
  absl::string_view path;  // relative to clients/web/, e.g. "index.html"
  absl::string_view content_type;  // from the file's extension
  absl::string_view body;
};

// Every file under clients/web/ except hidden ones and node_modules/, by
// path.
const std::vector<WebAsset>& WebAssets();

// What a board maker needs, served under /v1/inworld/: the in-world board's
// four scripts (clients/lsl/*.lsl) and the board as a region archive
// (khet-board.oar, made by clients/lsl/make_oar.py with no server named:
// the board's description names it).
const std::vector<WebAsset>& BoardAssets();

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_WEB_ASSETS_H_
