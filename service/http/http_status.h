// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// How the gateway answers an error: the HTTP status for each code of the
// service (docs/http-api.md) and the JSON error body.
#ifndef KHET_SERVICE_HTTP_HTTP_STATUS_H_
#define KHET_SERVICE_HTTP_HTTP_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "service/http/http_message.h"

namespace khet {

// 400 for INVALID_ARGUMENT, FAILED_PRECONDITION and OUT_OF_RANGE, 401, 403,
// 404, 409 for ABORTED and ALREADY_EXISTS, 429 for RESOURCE_EXHAUSTED, 499
// CANCELLED, 501, 503, 504 DEADLINE_EXCEEDED, else 500. OK is 200.
int HttpStatusFor(absl::StatusCode code);

// {"error": {"code": "NOT_FOUND", "status": 404, "message": "..."}}
// with `http_status` as given (413 for an oversized body differs from the
// code's own mapping). REQUIRES: !status.ok().
std::string ErrorJson(const absl::Status& status, int http_status);

// The whole answer of an error: `http_status` with ErrorJson's body, and a
// budget's refusal (budget_refusal.h) with `Retry-After: <seconds>`.
HttpResponse ErrorResponse(const absl::Status& status, int http_status);

// A JSON string literal of `text` (quotes included), escaping what JSON
// requires; bytes that are not valid UTF-8 become U+FFFD.
std::string JsonQuote(absl::string_view text);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_STATUS_H_
