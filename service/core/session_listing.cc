// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/core/session_listing.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/text/quoted_input.h"
#include "service/wire/enum_fields.h"

namespace khet {
namespace {

constexpr int kDefaultPageSize = 20;

// The sort key: newest first, then by id.
struct ListKey {
  int64_t created_nanos;
  std::string id;
  bool Before(const ListKey& o) const {
    if (created_nanos != o.created_nanos) {
      return created_nanos > o.created_nanos;
    }
    return id < o.id;
  }
};

std::string EncodePageToken(const ListKey& key) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(key.created_nanos, ":", key.id));
}

absl::StatusOr<ListKey> DecodePageToken(std::string_view token) {
  const absl::Status bad = absl::InvalidArgumentError(
      absl::StrCat("bad page_token ", QuoteInput(token),
                   ": pass next_page_token from the previous response"));
  std::string raw;
  if (!absl::WebSafeBase64Unescape(
          absl::string_view(token.data(), token.size()), &raw)) {
    return bad;
  }
  const size_t colon = raw.find(':');
  if (colon == std::string::npos) return bad;
  ListKey key;
  if (!absl::SimpleAtoi(raw.substr(0, colon), &key.created_nanos)) return bad;
  key.id = raw.substr(colon + 1);
  if (key.id.empty()) return bad;
  return key;
}

}  // namespace

absl::StatusOr<v1::ListSessionsResponse> ListSessions(
    const ServiceCore& core, const v1::ListSessionsRequest& request) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "page_size must not be negative, not ", request.page_size()));
  }
  const int page_size =
      std::max(1, std::min(request.page_size() == 0 ? kDefaultPageSize
                                                    : request.page_size(),
                           core.limits->max_page_size));
  std::optional<ListKey> after;
  if (!request.page_token().empty()) {
    KHET_ASSIGN_OR_RETURN(after, DecodePageToken(request.page_token()));
  }
  if (core.registry->shared()) core.registry->SyncAll();
  std::vector<std::pair<ListKey, std::shared_ptr<SessionEntry>>> all;
  for (std::shared_ptr<SessionEntry>& entry : core.registry->Entries()) {
    ListKey key{absl::ToUnixNanos(entry->created_at), entry->id};
    all.emplace_back(std::move(key), std::move(entry));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.first.Before(b.first);
  });
  v1::ListSessionsResponse out;
  std::optional<ListKey> last;
  for (const auto& [key, entry] : all) {
    if (after.has_value() && !after->Before(key)) continue;
    SessionLock lock(*entry);
    if (entry->deleted) continue;
    if (entry->lost && !core.registry->Fresh(*entry).ok()) continue;
    if (request.status() != v1::GAME_STATUS_UNSPECIFIED &&
        entry->session.status() != request.status()) {
      continue;
    }
    if (out.sessions_size() == page_size) {
      // One more matches: there is a next page.
      out.set_next_page_token(EncodePageToken(*last));
      break;
    }
    *out.add_sessions() = entry->session.ToProto();
    last = key;
  }
  return out;
}

}  // namespace khet
