// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_board.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "tools/load/khet_load/load_http_connection.h"
#include "tools/load/khet_load/load_sessions.h"

namespace khet::load::boards_internal {

int64_t NumberField(absl::string_view json, absl::string_view key) {
  const std::string needle = absl::StrCat("\"", key, "\":");
  const size_t at = json.find(needle);
  if (at == absl::string_view::npos) return -1;
  absl::string_view rest = json.substr(at + needle.size());
  if (!rest.empty() && rest[0] == '"') rest.remove_prefix(1);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
    ++digits;
  }
  int64_t value = -1;
  return absl::SimpleAtoi(rest.substr(0, digits), &value) ? value : -1;
}

std::string StringField(absl::string_view json, absl::string_view key) {
  const std::string needle = absl::StrCat("\"", key, "\":\"");
  const size_t at = json.find(needle);
  if (at == absl::string_view::npos) return "";
  const size_t start = at + needle.size();
  const size_t end = json.find('"', start);
  if (end == absl::string_view::npos) return "";
  return std::string(json.substr(start, end - start));
}

Board::Board(ClientThread& client, int index, int address)
    : client_(client),
      index_(index),
      address_(address),
      random_(client.options().seed * 1000003 + index),
      game_(NewGame(client.options().game)),
      waiter_(client.NewConnection(address)),
      move_timer_(client.io()),
      wait_timer_(client.io()),
      move_retry_timer_(client.io()) {
  object_key_ =
      absl::StrFormat("%08x-0000-4000-8000-%012x",
                      static_cast<uint32_t>(client.options().seed), index);
  owner_key_ =
      absl::StrFormat("%08x-0000-4000-8000-%012x", 0xa0a0a0a0u, index % 100);
}

std::string Board::Headers(const std::string& token) const {
  std::string headers;
  if (!token.empty())
    absl::StrAppend(&headers, "X-Khet-Token: ", token, "\r\n");
  if (client_.options().inworld_headers) {
    absl::StrAppend(&headers, "X-SecondLife-Object-Key: ", object_key_,
                    "\r\nX-SecondLife-Owner-Key: ", owner_key_, "\r\n");
  }
  return headers;
}

LoadHttpConnection& Board::Shared() { return client_.Shared(address_); }

bool Board::Outage(const HttpAnswer& answer) const {
  return client_.window().FaultStarted(NowNs()) &&
         (answer.status == 0 || answer.status == 502 || answer.status == 503 ||
          answer.status == 504);
}

bool Board::Refused(absl::string_view what, const HttpAnswer& answer) {
  const int64_t now = NowNs();
  const std::string status =
      answer.status == 0 ? "failed" : absl::StrCat(answer.status);
  if (answer.status == 200) {
    if (outage_since_ns_ != 0) {
      // Served again: timed from the fault's end (if it has one and came
      // later) or this board's first failure.
      const Window& window = client_.window();
      const int64_t fault_end =
          window.fault_end.load(std::memory_order_relaxed);
      const int64_t from =
          std::max(outage_since_ns_,
                   fault_end == INT64_MAX
                       ? window.fault_start.load(std::memory_order_relaxed)
                       : fault_end);
      client_.counts().recovery_ns.push_back(std::max<int64_t>(0, now - from));
      outage_since_ns_ = 0;
    }
    return false;
  }
  if (Outage(answer)) {
    ++client_.counts().outage[absl::StrCat(what, " ", status)];
    if (outage_since_ns_ == 0) outage_since_ns_ = now;
    return true;
  }
  ++client_.counts().refusals[absl::StrCat(what, " ", status)];
  if (answer.status != 429) {
    client_.Error(absl::StrCat("board ", index_, " ", what, ": ", answer.status,
                               " ", answer.body.substr(0, 200)));
  }
  return true;
}

void Board::Retry(net::steady_timer& timer, std::function<void()> again,
                  const HttpAnswer& answer) {
  const double base =
      answer.status == 0 ? 0.1 : std::max(1, answer.retry_after_seconds);
  const double delay =
      base * (1 + std::uniform_real_distribution<double>(0, 0.5)(random_));
  timer.expires_after(std::chrono::microseconds(int64_t(delay * 1e6)));
  timer.async_wait(
      [again = std::move(again)](const boost::system::error_code& ec) {
        if (!ec) again();
      });
}

void Board::Create() {
  const GameOptions& game = client_.options().game;
  std::string body =
      absl::StrCat(R"({"name":"board )", index_, R"(","setupId":")", game.setup,
                   R"(","rules":{"automaticRepetitionDraw":true,"plyLimit":)",
                   game.ply_limit, "}}");
  Shared().Send("POST", "/v1/sessions?view=compact", Headers(""),
                std::move(body), [this](HttpAnswer answer) {
                  if (Refused("create", answer)) {
                    if (answer.status == 429 || answer.status == 0) {
                      Retry(
                          wait_timer_, [this] { Create(); }, answer);
                    } else {
                      client_.SetUpDone();
                    }
                    return;
                  }
                  id_ = StringField(answer.body, "id");
                  owner_token_ = StringField(answer.body, "owner");
                  Join(0);
                });
}

void Board::Join(int color) {
  std::string body = color == 0 ? R"({"color":"SILVER","playerName":"silver"})"
                                : R"({"color":"RED","playerName":"red"})";
  Shared().Send("POST",
                absl::StrCat("/v1/sessions/", id_, ":join?view=compact"),
                Headers(""), std::move(body), [this, color](HttpAnswer answer) {
                  if (Refused("join", answer)) {
                    if (answer.status == 429 || answer.status == 0) {
                      Retry(
                          wait_timer_, [this, color] { Join(color); }, answer);
                    } else {
                      client_.SetUpDone();
                    }
                    return;
                  }
                  tokens_[color] = StringField(answer.body, "token");
                  version_ = std::max(version_, NumberField(answer.body, "v"));
                  if (color == 0) return Join(1);
                  if (client_.options().push) return Register();
                  Playing();
                });
}

void Board::Playing() {
  delivered_ = version_;
  ++client_.counts().set_up;
  client_.SetUpDone();
  if (!client_.options().push) Wait();
  const double period = client_.options().move_period_seconds;
  ScheduleMove(std::uniform_real_distribution<double>(0, period)(random_));
}

void Board::Wait() {
  const std::string base = absl::StrCat("/v1/sessions/", id_, "/events");
  if (client_.options().stream) {
    stream_line_.clear();
    waiter_->Stream(
        absl::StrCat(base, ":stream?afterVersion=", delivered_), Headers(""),
        [this](absl::string_view data) { StreamData(data); },
        [this](int status) { StreamEnded(status); });
    return;
  }
  waiter_->Send("GET",
                absl::StrCat(base, "?afterVersion=", delivered_,
                             "&waitSeconds=", client_.options().wait_seconds,
                             "&view=compact"),
                Headers(""), "",
                [this](HttpAnswer answer) { Polled(std::move(answer)); });
}

void Board::Polled(HttpAnswer answer) {
  if (Refused("poll", answer)) {
    return Retry(
        wait_timer_, [this] { Wait(); }, answer);
  }
  TakeEvents(answer.body, NowNs());
  Wait();
}

void Board::StreamData(absl::string_view data) {
  stream_line_.append(data.data(), data.size());
  size_t start = 0;
  for (size_t end; (end = stream_line_.find('\n', start)) != std::string::npos;
       start = end + 1) {
    absl::string_view line(stream_line_.data() + start, end - start);
    int64_t version = 0;
    if (absl::ConsumePrefix(&line, "id: ") &&
        absl::SimpleAtoi(line, &version)) {
      Counts& counts = client_.counts();
      if (version <= delivered_) {
        ++counts.out_of_order;
      } else if (version != delivered_ + 1) {
        ++counts.gaps;
      }
      if (version != delivered_ + 1) {
        if (counts.out_of_order + counts.gaps <= 3) {
          client_.Error(absl::StrCat("board ", index_,
                                     ": stream event after version ",
                                     delivered_, " is ", version));
        }
      }
      if (version > delivered_) Delivered(version, NowNs());
    }
  }
  stream_line_.erase(0, start);
}

void Board::StreamEnded(int status) {
  HttpAnswer answer;
  answer.status = status;
  // A stream ends only when refused or cut: counted, then opened again. Cut
  // after its headers by a fault, it failed.
  if (status == 200 && client_.window().FaultStarted(NowNs())) {
    answer.status = 0;
  }
  Refused("stream", answer);
  Retry(
      wait_timer_, [this] { Wait(); }, answer);
}

void Board::TakeEvents(absl::string_view body, int64_t at_ns) {
  Counts& counts = client_.counts();
  const int64_t version = NumberField(body, "v");
  const size_t events = body.find("\"events\":[");
  if (events == absl::string_view::npos) {
    // The compact session: the latest state, for a board far behind.
    ++counts.states;
    if (version < delivered_) ++counts.out_of_order;
    if (version > delivered_) Delivered(version, at_ns);
    return;
  }
  // Each event's version in turn: the one after the last delivered, then
  // one more each.
  int64_t last = delivered_;
  bool backwards = false, skipped = false;
  absl::string_view rest = body.substr(events);
  for (size_t at; (at = rest.find("\"v\":")) != absl::string_view::npos;) {
    rest.remove_prefix(at);
    const int64_t event = NumberField(rest, "v");
    rest.remove_prefix(4);
    if (event <= last) {
      backwards = true;
    } else {
      if (event != last + 1) skipped = true;
      last = event;
    }
  }
  if (last != version) skipped = true;  // "v" is the last event's version
  if (backwards || skipped) {
    if (backwards) ++counts.out_of_order;
    if (skipped) ++counts.gaps;
    if (counts.out_of_order + counts.gaps <= 3) {
      client_.Error(absl::StrCat("board ", index_, ": events after version ",
                                 delivered_,
                                 " out of order: ", body.substr(0, 200)));
    }
  }
  if (last > delivered_) Delivered(last, at_ns);
}

void Board::Delivered(int64_t version, int64_t at_ns) {
  delivered_ = version;
  version_ = std::max(version_, version);
  if (!awaiting_ || version < acked_version_) return;
  awaiting_ = false;
  if (client_.window().Contains(acked_ns_)) {
    Counts& counts = client_.counts();
    // A push read by its server before the move's answer was (handed over
    // from the server's thread after it): no wait at all.
    if (at_ns < acked_ns_) ++counts.delivered_first;
    counts.delivery_ns.push_back(std::max<int64_t>(0, at_ns - acked_ns_));
  }
}

void Board::ScheduleMove(double seconds) {
  move_timer_.expires_after(std::chrono::microseconds(int64_t(seconds * 1e6)));
  move_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) Move();
  });
}

void Board::Move() {
  const BoardsOptions& options = client_.options();
  if (client_.window().Over(NowNs())) return;  // the run is over
  const double jitter = std::uniform_real_distribution<double>(
      -options.move_jitter, options.move_jitter)(random_);
  const double next = options.move_period_seconds * (1 + jitter);
  if (awaiting_) {
    // The last move's event has not come yet: this period passes.
    if (client_.window().Contains(NowNs())) ++client_.counts().skipped;
    return ScheduleMove(next);
  }
  ScheduleMove(next);
  if (game_->over()) {
    if (!rematching_) Rematch();
    return;
  }
  const Position& pos = game_->position();
  MoveList moves;
  GenerateMoves(pos, &moves);
  if (moves.size == 0) {
    client_.Error(absl::StrCat("board ", index_, ": no legal move"));
    return;
  }
  const khet::Move move = moves.moves[random_() % moves.size];
  std::string notation = FormatMove(pos, move);
  const int side = pos.side_to_move() == Color::kSilver ? 0 : 1;
  std::string body = absl::StrCat(
      R"({"move":{"notation":")", notation, R"("},"expectedVersion":")",
      version_, R"(","requestId":"m)", index_, "-", ++moves_, "\"}");
  awaiting_ = true;
  acked_version_ = INT64_MAX;  // until the answer names it
  acked_ns_ = INT64_MAX;
  SendMove(move, std::move(notation), side, std::move(body), NowNs(),
           /*again=*/false);
}

void Board::SendMove(khet::Move move, std::string notation, int side,
                     std::string body, int64_t sent_ns, bool again) {
  if (again) ++client_.counts().moves_sent_again;
  Shared().Send("POST",
                absl::StrCat("/v1/sessions/", id_, ":move?view=compact"),
                Headers(tokens_[side]), body,
                [this, move, notation = std::move(notation), side, body,
                 sent_ns, again](HttpAnswer answer) mutable {
                  const int64_t now = NowNs();
                  const bool outage = Outage(answer);
                  if (Refused("move", answer)) {
                    if (outage) {
                      // The same request again: played once, or its kept
                      // answer.
                      Retry(
                          move_retry_timer_,
                          [this, move, notation, side, body, sent_ns] {
                            SendMove(move, notation, side, body, sent_ns,
                                     /*again=*/true);
                          },
                          answer);
                    } else {
                      awaiting_ = false;
                    }
                    return;
                  }
                  if (!game_->Play(move).ok()) {
                    client_.Error(absl::StrCat("board ", index_, ": ", notation,
                                               " taken by khetd, not locally"));
                  }
                  const int64_t version = NumberField(answer.body, "v");
                  version_ = std::max(version_, version);
                  acked_version_ = version;
                  acked_ns_ = now;
                  Counts& counts = client_.counts();
                  if (client_.window().Contains(now)) {
                    ++counts.moves;
                    // A move sent again waited for the fault: its time is the
                    // outage's (recovery_ns), not an answer's.
                    if (!again) counts.move_ns.push_back(now - sent_ns);
                  }
                  if (delivered_ >= version) {
                    // The event came before the answer: no wait at all.
                    awaiting_ = false;
                    if (client_.window().Contains(now)) {
                      ++counts.delivered_first;
                      counts.delivery_ns.push_back(0);
                    }
                  }
                });
}

// A finished game: the owner asks for the next one (colours swapped).
void Board::Rematch() {
  rematching_ = true;
  Shared().Send("POST",
                absl::StrCat("/v1/sessions/", id_, ":rematch?view=compact"),
                Headers(owner_token_), "{}", [this](HttpAnswer answer) {
                  if (Refused("rematch", answer)) {
                    // The rematch may have been made before the answer
                    // was lost: the session says.
                    if (Outage(answer)) Resync();
                    return;
                  }
                  Rematched(answer.body);
                });
}

void Board::Rematched(absl::string_view answer) {
  std::swap(tokens_[0], tokens_[1]);
  game_ = NewGame(client_.options().game);
  version_ = std::max(version_, NumberField(answer, "v"));
}

void Board::Resync() {
  Shared().Send("GET", absl::StrCat("/v1/sessions/", id_, "?view=compact"),
                Headers(owner_token_), "", [this](HttpAnswer answer) {
                  if (Refused("session", answer)) {
                    if (Outage(answer)) {
                      Retry(
                          move_retry_timer_, [this] { Resync(); }, answer);
                    }
                    return;
                  }
                  rematching_ = false;
                  // A new game, no move yet: the rematch was made. Otherwise
                  // the next period asks for it again.
                  if (StringField(answer.body, "st") != "P" ||
                      !StringField(answer.body, "last").empty()) {
                    return;
                  }
                  Rematched(answer.body);
                });
}

}  // namespace khet::load::boards_internal
