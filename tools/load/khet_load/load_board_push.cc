// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Push mode, a board's side (docs/http-api.md, "Pushed events"): once both
// seats are taken, the board registers a URL on its client address's
// receiving server with the owner's token and keeps the registration's
// secret; each delivery then handed to it must carry that secret's
// signature and the session's event versions in order, one after the
// other, after the last one delivered. Wrong deliveries are counted (and
// the first few said in words), never taken.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tools/load/khet_load/load_board.h"
#include "tools/load/khet_load/load_http_connection.h"
#include "tools/load/khet_load/push_signature.h"

namespace khet::load::boards_internal {

// Push mode: the board's URL on its address's server, as a region gives
// an object one (llRequestURL), registered with the owner's token.
void Board::Register() {
  const std::string url =
      absl::StrCat("http://", ClientThread::Source(address_).to_string(), ":",
                   client_.PushPort(address_), "/lslhttp/", object_key_, "/");
  std::string body =
      absl::StrCat(R"({"url":")", url, R"(","afterVersion":)", version_, "}");
  // On the board's own connection: the khetd it waits on delivers.
  waiter_->Send(
      "POST", absl::StrCat("/v1/sessions/", id_, "/callback"),
      absl::StrCat("Authorization: Bearer ", owner_token_, "\r\n", Headers("")),
      std::move(body), [this](HttpAnswer answer) {
        if (Refused("register", answer)) {
          if (answer.status == 429 || answer.status == 0) {
            Retry(
                wait_timer_, [this] { Register(); }, answer);
          } else {
            client_.SetUpDone();
          }
          return;
        }
        secret_ = StringField(answer.body, "secret");
        if (secret_.size() != 64) {
          client_.Error(absl::StrCat("board ", index_,
                                     ": no secret in the registration's "
                                     "answer: ",
                                     answer.body.substr(0, 200)));
          client_.SetUpDone();
          return;
        }
        Playing();
      });
}

void Board::Pushed(absl::string_view target, absl::string_view body,
                   int64_t arrival_ns) {
  Counts& counts = client_.counts();
  ++counts.deliveries;
  // sig=<hex SHA-256 of secret + body + secret> ends the query.
  absl::string_view sig;
  for (absl::string_view prefix : {"?sig=", "&sig="}) {
    if (const size_t at = target.find(prefix); at != absl::string_view::npos) {
      sig = target.substr(at + prefix.size());
      sig = sig.substr(0, sig.find('&'));
    }
  }
  if (secret_.empty() || sig != PushSignature(secret_, body)) {
    // A board takes only deliveries it can sign itself.
    if (++counts.bad_signatures <= 3) {
      client_.Error(absl::StrCat("board ", index_, ": delivery with a bad ",
                                 "signature: ", target, " ",
                                 body.substr(0, 120)));
    }
    return;
  }
  TakeEvents(body, arrival_ns);
}

}  // namespace khet::load::boards_internal
