// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Reading an HTTP request for the gateway: the caller's token, the query
// parameters a route allows, and the JSON body. Every problem is an
// absl::Status naming it; nothing is guessed.
#ifndef KHET_SERVICE_HTTP_HTTP_REQUEST_H_
#define KHET_SERVICE_HTTP_HTTP_REQUEST_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/core/session_service.h"
#include "service/http/http_message.h"

namespace khet {

// The token of "Authorization: Bearer <token>" or "X-Khet-Token: <token>".
// UNAUTHENTICATED naming the problem when there is none, it is malformed,
// or the two headers disagree.
absl::StatusOr<Caller> CallerOf(const HttpRequest& request);

// The query parameters, each given at most once and all in `allowed`;
// INVALID_ARGUMENT naming an unknown or repeated one.
class Query {
 public:
  static absl::StatusOr<Query> Read(
      const HttpRequest& request,
      std::initializer_list<absl::string_view> allowed);

  // The parameter's text, or `otherwise` when absent.
  std::string Text(absl::string_view name, absl::string_view otherwise) const;
  // A whole number in [min, max]; `otherwise` when absent.
  absl::StatusOr<int64_t> Number(absl::string_view name, int64_t otherwise,
                                 int64_t min, int64_t max) const;
  // "true"/"1" or "false"/"0"; `otherwise` when absent.
  absl::StatusOr<bool> Flag(absl::string_view name, bool otherwise) const;
  // view=compact (true) or view=full (false, the default).
  absl::StatusOr<bool> Compact() const;

 private:
  std::map<std::string, std::string, std::less<>> params_;
};

// A whole number of a header or parameter named `what`; INVALID_ARGUMENT
// if it is not one in [min, max].
absl::StatusOr<int64_t> ParseNumber(absl::string_view what,
                                    absl::string_view text, int64_t min,
                                    int64_t max);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_REQUEST_H_
