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
      wait_timer_(client.io()) {
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

bool Board::Refused(absl::string_view what, const HttpAnswer& answer) {
  if (answer.status == 200) return false;
  ++client_.counts().refusals[absl::StrCat(
      what, " ", answer.status == 0 ? "failed" : absl::StrCat(answer.status))];
  if (answer.status != 429) {
    client_.Error(absl::StrCat("board ", index_, " ", what, ": ", answer.status,
                               " ", answer.body.substr(0, 200)));
  }
  return true;
}

// Calls `again` after the refusal's Retry-After (at least 1 s), or at once
// after a failed connection, with a random share more.
void Board::Retry(std::function<void()> again, const HttpAnswer& answer) {
  const double base =
      answer.status == 0 ? 0.1 : std::max(1, answer.retry_after_seconds);
  const double delay =
      base * (1 + std::uniform_real_distribution<double>(0, 0.5)(random_));
  wait_timer_.expires_after(std::chrono::microseconds(int64_t(delay * 1e6)));
  wait_timer_.async_wait(
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
                      Retry([this] { Create(); }, answer);
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
                      Retry([this, color] { Join(color); }, answer);
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
  if (Refused("poll", answer)) return Retry([this] { Wait(); }, answer);
  // The answer's own version comes first: {"v":N,"events":[...]}.
  const int64_t version = NumberField(answer.body, "v");
  if (version > delivered_) Delivered(version, NowNs());
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
        absl::SimpleAtoi(line, &version) && version > delivered_) {
      Delivered(version, NowNs());
    }
  }
  stream_line_.erase(0, start);
}

void Board::StreamEnded(int status) {
  HttpAnswer answer;
  answer.status = status;
  // A stream ends only when refused or cut: counted, then opened again.
  Refused("stream", answer);
  Retry([this] { Wait(); }, answer);
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
  const std::string notation = FormatMove(pos, move);
  const int side = pos.side_to_move() == Color::kSilver ? 0 : 1;
  std::string body = absl::StrCat(
      R"({"move":{"notation":")", notation, R"("},"expectedVersion":")",
      version_, R"(","requestId":"m)", index_, "-", ++moves_, "\"}");
  awaiting_ = true;
  acked_version_ = INT64_MAX;  // until the answer names it
  acked_ns_ = INT64_MAX;
  const int64_t sent = NowNs();
  Shared().Send("POST",
                absl::StrCat("/v1/sessions/", id_, ":move?view=compact"),
                Headers(tokens_[side]), std::move(body),
                [this, move, notation, sent](HttpAnswer answer) {
                  const int64_t now = NowNs();
                  if (Refused("move", answer)) {
                    awaiting_ = false;
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
                    counts.move_ns.push_back(now - sent);
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
                  if (Refused("rematch", answer)) return;
                  std::swap(tokens_[0], tokens_[1]);
                  game_ = NewGame(client_.options().game);
                  version_ = std::max(version_, NumberField(answer.body, "v"));
                });
}

}  // namespace khet::load::boards_internal
