// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The text of an HTTP/1.1 response on the wire around its body: the status
// line and headers, and the pieces of a chunked body.
#ifndef KHET_SERVICE_HTTP_RESPONSE_TEXT_H_
#define KHET_SERVICE_HTTP_RESPONSE_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "service/http/http_message.h"

namespace khet {

// The status line and headers of `response` (with the Date every origin
// server with a clock sends) and its Connection header; the caller adds the
// framing header and the blank line.
std::string ResponseHeadText(const HttpResponse& response, bool keep_alive);

// `data` as one piece of a chunked body: its size in hex, CRLF, the data,
// CRLF.
std::string ChunkText(absl::string_view data);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_RESPONSE_TEXT_H_
