// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HTTP gateway's OpenAPI 3.1 document (docs/openapi.yaml), built into
// khetd as JSON (embed_openapi.py writes it at build time) and served at
// GET /v1/openapi.json, so that a client can be generated from the server.
#ifndef KHET_SERVICE_HTTP_OPENAPI_DOCUMENT_H_
#define KHET_SERVICE_HTTP_OPENAPI_DOCUMENT_H_

#include "absl/strings/string_view.h"

namespace khet {

// The document as one line of JSON.
absl::string_view OpenApiJson();

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_OPENAPI_DOCUMENT_H_
