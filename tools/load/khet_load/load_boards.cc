#include "tools/load/khet_load/load_boards.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/address_v4.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/common/load_average.h"
#include "tools/load/common/raw_http.h"
#include "tools/load/khet_load/load_figures.h"
#include "tools/load/khet_load/load_http_connection.h"
#include "tools/load/khet_load/load_push_receiver.h"
#include "tools/load/khet_load/push_signature.h"

namespace khet::load {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The number after `"key":` (a JSON number or a quoted one) in a compact
// answer, the first such key; -1 if none.
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

// The string after `"key":"` in a compact answer; "" if none.
std::string StringField(absl::string_view json, absl::string_view key) {
  const std::string needle = absl::StrCat("\"", key, "\":\"");
  const size_t at = json.find(needle);
  if (at == absl::string_view::npos) return "";
  const size_t start = at + needle.size();
  const size_t end = json.find('"', start);
  if (end == absl::string_view::npos) return "";
  return std::string(json.substr(start, end - start));
}

// What one client thread counted; read once its thread has stopped.
struct Counts {
  std::vector<int64_t> delivery_ns;  // acknowledged -> delivered, in window
  std::vector<int64_t> move_ns;      // a move's answer time, in window
  int64_t moves = 0;                 // acknowledged in the window
  int64_t delivered_first = 0;       // of those, delivered before the answer
  int64_t skipped = 0;      // periods with the last move not yet delivered
  int64_t undelivered = 0;  // acknowledged in the window, never delivered
  int64_t reconnects = 0;
  // Pushed deliveries (push mode), from set-up to the end.
  int64_t deliveries = 0;
  int64_t bad_signatures = 0;  // sig not secret + body + secret's SHA-256
  int64_t out_of_order = 0;    // an event at or below one delivered before
  int64_t gaps = 0;            // an event version skipped
  int64_t states = 0;          // the compact session instead of events
  std::map<std::string, int64_t> refusals;  // "move 429" -> count
  std::vector<std::string> errors;          // the first few, in words
  std::atomic<int> set_up{0};               // boards playing
};

// When the boards measure, in NowNs(); set by the main thread before any
// board is started, read by the client threads.
struct Window {
  std::atomic<int64_t> start{INT64_MAX};
  std::atomic<int64_t> end{INT64_MAX};
  bool Contains(int64_t ns) const {
    return ns >= start.load(std::memory_order_relaxed) &&
           ns <= end.load(std::memory_order_relaxed);
  }
  bool Over(int64_t ns) const {
    return ns > end.load(std::memory_order_relaxed);
  }
};

class ClientThread;

// One board: set up, then waiting for events and moving, on its client
// thread.
class Board {
 public:
  Board(ClientThread& client, int index, int address);
  void Start() { Create(); }
  // A delivery khetd pushed to this board's URL, `target` its path and
  // query, `arrival_ns` when its server had read it whole; on the board's
  // client thread.
  void Pushed(absl::string_view target, absl::string_view body,
              int64_t arrival_ns);
  const std::string& object_key() const { return object_key_; }
  ClientThread& client() const { return client_; }
  // At the end: an acknowledged move in the window still not delivered.
  bool Undelivered(const Window& window) const {
    return awaiting_ && window.Contains(acked_ns_);
  }

 private:
  void Create();
  void Join(int color);
  void Register();
  void Playing();
  void Wait();
  void Polled(HttpAnswer answer);
  void StreamData(absl::string_view data);
  void StreamEnded(int status);
  // `version` reached the board at `at_ns`.
  void Delivered(int64_t version, int64_t at_ns);
  void ScheduleMove(double seconds);
  void Move();
  void Moved(const std::string& notation, int64_t sent_ns, HttpAnswer answer);
  void Rematch();
  void Retry(std::function<void()> again, const HttpAnswer& answer);
  // Counts a refusal or failure of `what`; false if `answer` is a 200.
  bool Refused(absl::string_view what, const HttpAnswer& answer);
  std::string Headers(const std::string& token) const;
  LoadHttpConnection& Shared();

  ClientThread& client_;
  const int index_;
  const int address_;
  std::mt19937_64 random_;
  std::string object_key_, owner_key_;
  std::string id_, owner_token_;
  std::string secret_;     // push mode: the registration's
  std::string tokens_[2];  // silver, red
  std::unique_ptr<Game> game_;
  int64_t version_ = 0;      // the latest version answered or delivered
  int64_t delivered_ = 0;    // the latest version delivered to the board
  bool awaiting_ = false;    // a move acknowledged, its event not yet here
  bool rematching_ = false;  // a rematch asked for, not yet answered
  int64_t acked_version_ = 0;
  int64_t acked_ns_ = 0;
  int64_t moves_ = 0;
  std::shared_ptr<LoadHttpConnection> waiter_;
  std::string stream_line_;
  net::steady_timer move_timer_;
  net::steady_timer wait_timer_;
};

// A client thread: an io_context with its boards and their connections.
class ClientThread {
 public:
  ClientThread(const BoardsOptions& options, const Window& window, int port,
               int number)
      : options_(options),
        window_(window),
        server_(net::ip::make_address_v4("127.0.0.1"), port),
        number_(number) {}

  Board* Add(int index, int address) {
    boards_.push_back(std::make_unique<Board>(*this, index, address));
    return boards_.back().get();
  }
  void Run() {
    net::post(io_, [this] { StartMore(); });
    io_.run();
  }
  // A board finished setting up (or gave up): the next one starts.
  void SetUpDone() {
    --setting_up_;
    StartMore();
  }
  void Stop() { io_.stop(); }
  // Push mode: the port of each client address's receiving server.
  void SetPushPorts(std::vector<int> ports) { push_ports_ = std::move(ports); }
  int PushPort(int address) const { return push_ports_.at(address); }
  // After Stop and the thread's end.
  void CountUndelivered() {
    for (const auto& board : boards_) {
      if (board->Undelivered(window_)) ++counts_.undelivered;
    }
  }

  net::io_context& io() { return io_; }
  const BoardsOptions& options() const { return options_; }
  const Window& window() const { return window_; }
  Counts& counts() { return counts_; }
  int number() const { return number_; }

  static net::ip::address Source(int address) {
    return net::ip::address_v4(0x7F000002u + static_cast<uint32_t>(address));
  }
  std::shared_ptr<LoadHttpConnection> NewConnection(int address) {
    return std::make_shared<LoadHttpConnection>(io_, server_, Source(address),
                                                &counts_.reconnects);
  }
  // The least busy of the connections shared by the boards of `address`.
  LoadHttpConnection& Shared(int address) {
    std::vector<std::shared_ptr<LoadHttpConnection>>& pool = shared_[address];
    if (pool.empty()) {
      for (int i = 0; i < options_.shared_connections; ++i) {
        pool.push_back(NewConnection(address));
      }
    }
    LoadHttpConnection* best = pool[0].get();
    for (const auto& connection : pool) {
      if (connection->pending() < best->pending()) best = connection.get();
    }
    return *best;
  }
  void Error(std::string what) {
    if (counts_.errors.size() < 5) counts_.errors.push_back(std::move(what));
  }

 private:
  // Boards set up at once per client thread: as boards are rezzed over
  // time, rather than every session created before any is joined.
  static constexpr int kSettingUpAtOnce = 32;

  void StartMore() {
    while (setting_up_ < kSettingUpAtOnce && started_ < boards_.size()) {
      ++setting_up_;
      boards_[started_++]->Start();
    }
  }

  const BoardsOptions& options_;
  const Window& window_;
  const tcp::endpoint server_;
  const int number_;
  net::io_context io_;
  Counts counts_;
  std::map<int, std::vector<std::shared_ptr<LoadHttpConnection>>> shared_;
  std::vector<std::unique_ptr<Board>> boards_;
  std::vector<int> push_ports_;
  size_t started_ = 0;
  int setting_up_ = 0;
};

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

// Push mode: the board's URL on its address's server, as a region gives
// an object one (llRequestURL), registered with the owner's token.
void Board::Register() {
  const std::string url =
      absl::StrCat("http://", ClientThread::Source(address_).to_string(), ":",
                   client_.PushPort(address_), "/lslhttp/", object_key_, "/");
  std::string body =
      absl::StrCat(R"({"url":")", url, R"(","afterVersion":)", version_, "}");
  Shared().Send(
      "POST", absl::StrCat("/v1/sessions/", id_, "/callback"),
      absl::StrCat("Authorization: Bearer ", owner_token_, "\r\n", Headers("")),
      std::move(body), [this](HttpAnswer answer) {
        if (Refused("register", answer)) {
          if (answer.status == 429 || answer.status == 0) {
            Retry([this] { Register(); }, answer);
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
  const int64_t version = NumberField(body, "v");
  const size_t events = body.find("\"events\":[");
  if (events == absl::string_view::npos) {
    // The compact session: the latest state, for a board far behind.
    ++counts.states;
    if (version < delivered_) ++counts.out_of_order;
    if (version > delivered_) Delivered(version, arrival_ns);
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
      client_.Error(absl::StrCat("board ", index_, ": delivery after version ",
                                 delivered_,
                                 " out of order: ", body.substr(0, 200)));
    }
  }
  if (last > delivered_) Delivered(last, arrival_ns);
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

// khetd's own figures of its pushes, from one read of its /metrics page.
struct PushMetrics {
  bool read = false;
  double boards = 0, connections = 0;               // gauges
  std::map<std::string, double> deliveries, drops;  // by result, reason
  // khet_push_delivery_seconds: cumulative buckets (le, count), sum, count.
  std::vector<std::pair<double, double>> buckets;
  double sum = 0, count = 0;
};

PushMetrics ReadPushMetrics(int http_port) {
  PushMetrics m;
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port);
  if (!connection.ok() || !(*connection)->Send(GetRequest("/metrics"))) {
    return m;
  }
  absl::StatusOr<RawResponse> page = (*connection)->Read(absl::Seconds(10));
  if (!page.ok() || page->status != 200) return m;
  m.read = true;
  for (absl::string_view line : absl::StrSplit(page->body, '\n')) {
    if (!absl::StartsWith(line, "khet_push_")) continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(space + 1), &value)) {
      continue;
    }
    const absl::string_view series = line.substr(0, space);
    // The one label's value: {name="value"}.
    std::string label;
    if (const size_t quote = series.find('"');
        quote != absl::string_view::npos) {
      absl::string_view rest = series.substr(quote + 1);
      label = std::string(rest.substr(0, rest.find('"')));
    }
    if (series == "khet_push_boards") {
      m.boards = value;
    } else if (series == "khet_push_connections") {
      m.connections = value;
    } else if (absl::StartsWith(series, "khet_push_deliveries_total{")) {
      m.deliveries[label] = value;
    } else if (absl::StartsWith(series, "khet_push_drops_total{")) {
      m.drops[label] = value;
    } else if (absl::StartsWith(series, "khet_push_delivery_seconds_bucket{")) {
      double le = INFINITY;
      if (label != "+Inf" && !absl::SimpleAtod(label, &le)) continue;
      m.buckets.emplace_back(le, value);
    } else if (series == "khet_push_delivery_seconds_sum") {
      m.sum = value;
    } else if (series == "khet_push_delivery_seconds_count") {
      m.count = value;
    }
  }
  return m;
}

// `end`'s counters and histogram less `start`'s (an empty `start`: since
// khetd started), in words.
std::string PushMetricsText(const PushMetrics& end, const PushMetrics& start) {
  auto counters = [](const std::map<std::string, double>& now,
                     const std::map<std::string, double>& before) {
    std::string text;
    for (const auto& [label, value] : now) {
      const auto it = before.find(label);
      const double n = value - (it == before.end() ? 0 : it->second);
      if (n > 0) {
        absl::StrAppend(&text, text.empty() ? "" : ", ", label, " ",
                        static_cast<int64_t>(n));
      }
    }
    return text.empty() ? std::string("none") : text;
  };
  const double count = end.count - start.count;
  // The bucket holding a share `q` of the deliveries, as "<= X ms".
  auto within = [&](double q) -> std::string {
    for (size_t i = 0; i < end.buckets.size(); ++i) {
      const double before =
          i < start.buckets.size() ? start.buckets[i].second : 0;
      if (count > 0 && end.buckets[i].second - before >= q * count) {
        const double le = end.buckets[i].first;
        return std::isinf(le) ? std::string("> 10 s")
                              : absl::StrCat("<= ", le * 1000, " ms");
      }
    }
    return "-";
  };
  return absl::StrFormat(
      "khet_push_deliveries_total %s; khet_push_drops_total %s; "
      "khet_push_delivery_seconds (event stamped -> board's answer) %.0f, "
      "mean %.2f ms, p50 %s, p99 %s",
      counters(end.deliveries, start.deliveries),
      counters(end.drops, start.drops), count,
      count > 0 ? 1000 * (end.sum - start.sum) / count : 0.0, within(0.5),
      within(0.99));
}

// The board named by a pushed delivery's target, "/lslhttp/<object
// key>/?sig=...", the key's last 12 hex digits its index; null if none.
Board* PushedBoard(absl::string_view target,
                   const std::vector<Board*>& boards) {
  if (!absl::ConsumePrefix(&target, "/lslhttp/") || target.size() < 37 ||
      target[36] != '/') {
    return nullptr;
  }
  const absl::string_view key = target.substr(0, 36);
  uint64_t index = 0;
  for (char c : key.substr(24)) {
    if (!absl::ascii_isxdigit(c)) return nullptr;
    index = index * 16 +
            static_cast<uint64_t>(c <= '9' ? c - '0'
                                           : absl::ascii_tolower(c) - 'a' + 10);
  }
  if (index >= boards.size() || boards[index]->object_key() != key) {
    return nullptr;
  }
  return boards[index];
}

// Raises the soft limit of open files to the hard one: a board's long poll
// or stream holds a connection of its own.
void RaiseOpenFiles() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The percentile `q` of sorted `values` in milliseconds.
double Ms(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t at = std::min(
      sorted.size() - 1, static_cast<size_t>(q * (sorted.size() - 1) + 0.5));
  return sorted[at] / 1e6;
}

}  // namespace

bool RunBoards(const BoardsOptions& options, int http_port, pid_t pid) {
  RaiseOpenFiles();
  std::printf(
      "boards: %d, each %s, a move every %.1f s +-%.0f%%; %d client "
      "address%s, %d client threads; %u cores, load average %s\n",
      options.boards,
      options.push     ? "with a URL khetd pushes its events to (one "
                         "receiving server per client address)"
      : options.stream ? "with an event stream"
                       : absl::StrCat("with a long poll (waitSeconds ",
                                      options.wait_seconds, ")")
                             .c_str(),
      options.move_period_seconds, options.move_jitter * 100,
      options.client_addresses, options.client_addresses == 1 ? "" : "es",
      options.threads, std::thread::hardware_concurrency(),
      LoadAverage().c_str());
  std::fflush(stdout);

  Window window;
  std::vector<std::unique_ptr<ClientThread>> clients;
  for (int t = 0; t < options.threads; ++t) {
    clients.push_back(
        std::make_unique<ClientThread>(options, window, http_port, t));
  }
  std::vector<Board*> boards;  // by index
  for (int i = 0; i < options.boards; ++i) {
    boards.push_back(
        clients[i % options.threads]->Add(i, i % options.client_addresses));
  }

  // Push mode: each client address's receiving server, its acceptor on one
  // client thread, its connections spread over all of them. Each delivery
  // goes to its board's thread.
  std::atomic<int64_t> unknown_targets{0};
  std::vector<std::unique_ptr<PushReceiver>> receivers;
  if (options.push) {
    std::vector<int> ports;
    for (int a = 0; a < options.client_addresses; ++a) {
      std::vector<net::io_context*> ios;
      for (int t = 0; t < options.threads; ++t) {
        ios.push_back(&clients[(a + t) % options.threads]->io());
      }
      absl::StatusOr<std::unique_ptr<PushReceiver>> receiver =
          PushReceiver::Listen(
              ClientThread::Source(a), std::move(ios),
              [&boards, &unknown_targets](absl::string_view target,
                                          std::string body, int64_t arrival) {
                Board* board = PushedBoard(target, boards);
                if (board == nullptr) {
                  ++unknown_targets;
                  return;
                }
                net::post(board->client().io(),
                          [board, target = std::string(target),
                           body = std::move(body),
                           arrival] { board->Pushed(target, body, arrival); });
              });
      if (!receiver.ok()) {
        std::printf("  ERROR: %s\n", receiver.status().ToString().c_str());
        return false;
      }
      ports.push_back((*receiver)->port());
      receivers.push_back(std::move(*receiver));
    }
    for (auto& client : clients) client->SetPushPorts(ports);
  }

  // khetd's and the client's figures from /proc, sampled every 100 ms.
  int64_t rss_peak = 0;
  int threads_peak = 0;
  auto sample = [&] {
    if (pid <= 0) return;
    if (absl::StatusOr<int64_t> rss = ResidentBytes(pid); rss.ok()) {
      rss_peak = std::max(rss_peak, *rss);
    }
    if (absl::StatusOr<int> threads = ThreadCount(pid); threads.ok()) {
      threads_peak = std::max(threads_peak, *threads);
    }
  };
  auto cpu = [](pid_t of) -> int64_t {
    absl::StatusOr<int64_t> nanos = CpuNanos(of);
    return nanos.ok() ? *nanos : 0;
  };
  const int64_t rss_start = pid > 0 ? ResidentBytes(pid).value_or(0) : 0;

  const absl::Time setup_start = absl::Now();
  std::vector<std::thread> running;
  for (auto& client : clients) {
    running.emplace_back([&client] { client->Run(); });
  }
  auto set_up = [&] {
    int n = 0;
    for (auto& client : clients) n += client->counts().set_up.load();
    return n;
  };
  // Setting up: until every board plays, or no progress for 30 s.
  int last = -1;
  absl::Time progress = absl::Now();
  while (set_up() < options.boards) {
    absl::SleepFor(absl::Milliseconds(100));
    sample();
    const int now = set_up();
    if (now != last) {
      last = now;
      progress = absl::Now();
    } else if (absl::Now() - progress > absl::Seconds(30)) {
      break;
    }
  }
  const double setup_seconds = absl::ToDoubleSeconds(absl::Now() - setup_start);
  const int playing = set_up();
  std::printf(
      "  set up %d boards in %.1f s (sessions created, both seats "
      "taken, waiting)\n",
      playing, setup_seconds);
  std::fflush(stdout);

  auto sleep_sampling = [&](double seconds) {
    const absl::Time until = absl::Now() + absl::Seconds(seconds);
    while (absl::Now() < until) {
      absl::SleepFor(std::min(absl::Milliseconds(100), until - absl::Now()));
      sample();
    }
  };
  if (playing == options.boards) {
    sleep_sampling(options.warmup_seconds);
    const PushMetrics push_start =
        options.push ? ReadPushMetrics(http_port) : PushMetrics();
    window.start = NowNs();
    const int64_t khetd_cpu_start = pid > 0 ? cpu(pid) : 0;
    const int64_t client_cpu_start = cpu(getpid());
    const int64_t end = NowNs() + static_cast<int64_t>(options.seconds * 1e9);
    window.end = end;
    sleep_sampling(options.seconds);
    const int64_t khetd_cpu = pid > 0 ? cpu(pid) - khetd_cpu_start : 0;
    const int64_t client_cpu = cpu(getpid()) - client_cpu_start;
    // The last moves' events: a grace of 2 s.
    sleep_sampling(2);
    const PushMetrics push_end =
        options.push ? ReadPushMetrics(http_port) : PushMetrics();
    for (auto& client : clients) client->Stop();
    for (std::thread& thread : running) thread.join();
    running.clear();

    Counts all;
    for (auto& client : clients) {
      client->CountUndelivered();
      Counts& c = client->counts();
      all.delivery_ns.insert(all.delivery_ns.end(), c.delivery_ns.begin(),
                             c.delivery_ns.end());
      all.move_ns.insert(all.move_ns.end(), c.move_ns.begin(), c.move_ns.end());
      all.moves += c.moves;
      all.delivered_first += c.delivered_first;
      all.skipped += c.skipped;
      all.undelivered += c.undelivered;
      all.reconnects += c.reconnects;
      all.deliveries += c.deliveries;
      all.bad_signatures += c.bad_signatures;
      all.out_of_order += c.out_of_order;
      all.gaps += c.gaps;
      all.states += c.states;
      for (const auto& [what, n] : c.refusals) all.refusals[what] += n;
      for (const std::string& e : c.errors) all.errors.push_back(e);
    }
    std::sort(all.delivery_ns.begin(), all.delivery_ns.end());
    std::sort(all.move_ns.begin(), all.move_ns.end());
    std::printf(
        "  measured %.0f s: %lld moves acknowledged (%.0f/s), %zu events "
        "delivered (%lld before the move's answer), %lld undelivered, %lld "
        "periods skipped (last move not yet delivered)\n",
        options.seconds, static_cast<long long>(all.moves),
        all.moves / options.seconds, all.delivery_ns.size(),
        static_cast<long long>(all.delivered_first),
        static_cast<long long>(all.undelivered),
        static_cast<long long>(all.skipped));
    std::printf(
        "  delivery ms (move acknowledged -> %s): p50 %.2f  "
        "p99 %.2f  p99.9 %.2f  max %.2f\n",
        options.push ? "the push holding its event read by the board's server"
                     : "event at its board",
        Ms(all.delivery_ns, 0.5), Ms(all.delivery_ns, 0.99),
        Ms(all.delivery_ns, 0.999), Ms(all.delivery_ns, 1.0));
    std::printf("  move answer ms: p50 %.2f  p99 %.2f  max %.2f\n",
                Ms(all.move_ns, 0.5), Ms(all.move_ns, 0.99),
                Ms(all.move_ns, 1.0));
    std::string refusals;
    for (const auto& [what, n] : all.refusals) {
      absl::StrAppend(&refusals, refusals.empty() ? "" : ", ", what, " x", n);
    }
    std::printf("  refused or failed: %s; reconnects %lld\n",
                refusals.empty() ? "none" : refusals.c_str(),
                static_cast<long long>(all.reconnects));
    int64_t receiver_connections = 0, receiver_bad = 0;
    for (const auto& receiver : receivers) {
      receiver_connections += receiver->counts().connections;
      receiver_bad += receiver->counts().bad;
    }
    if (options.push) {
      std::printf(
          "  pushed (from set-up to the end): %lld deliveries to %d "
          "receiving server%s over %lld connections from khetd; bad "
          "signature %lld, out of order %lld, versions skipped %lld, "
          "unknown URL %lld, not a POST %lld, sessions instead of events "
          "%lld\n",
          static_cast<long long>(all.deliveries), options.client_addresses,
          options.client_addresses == 1 ? "" : "s",
          static_cast<long long>(receiver_connections),
          static_cast<long long>(all.bad_signatures),
          static_cast<long long>(all.out_of_order),
          static_cast<long long>(all.gaps),
          static_cast<long long>(unknown_targets.load()),
          static_cast<long long>(receiver_bad),
          static_cast<long long>(all.states));
      if (push_start.read && push_end.read) {
        std::printf(
            "  khetd's /metrics at the end: khet_push_boards %.0f, "
            "khet_push_connections %.0f\n"
            "    in the window and its grace: %s\n"
            "    since khetd started: %s\n",
            push_end.boards, push_end.connections,
            PushMetricsText(push_end, push_start).c_str(),
            PushMetricsText(push_end, PushMetrics()).c_str());
      } else {
        std::printf("  khetd's /metrics: not read\n");
      }
      if (all.bad_signatures + all.out_of_order + all.gaps +
              unknown_targets.load() + receiver_bad >
          0) {
        all.errors.push_back("pushed deliveries were wrong (above)");
      }
    }
    if (pid > 0) {
      std::printf(
          "  khetd: RSS peak %s (%s at start), threads peak %d, CPU %.1f%% "
          "of a core in the window\n",
          FormatBytes(rss_peak).c_str(), FormatBytes(rss_start).c_str(),
          threads_peak, 100.0 * khetd_cpu / (options.seconds * 1e9));
    }
    std::printf("  client (khet-load): CPU %.1f%% of a core in the window\n",
                100.0 * client_cpu / (options.seconds * 1e9));
    // What fails the run, each said once more as an ERROR line.
    if (!all.refusals.empty()) all.errors.push_back("calls refused or failed");
    if (all.undelivered > 0) {
      all.errors.push_back(absl::StrCat(all.undelivered,
                                        " acknowledged moves' events never "
                                        "reached their boards"));
    }
    if (all.moves == 0) all.errors.push_back("no move acknowledged");
    for (const std::string& e : all.errors) {
      std::printf("  ERROR: %s\n", e.c_str());
    }
    std::fflush(stdout);
    return all.errors.empty() && all.refusals.empty() && all.undelivered == 0 &&
           all.moves > 0;
  }
  for (auto& client : clients) client->Stop();
  for (std::thread& thread : running) thread.join();
  std::printf(
      "  ERROR: only %d of %d boards were set up within 30 s of the "
      "last progress\n",
      playing, options.boards);
  for (auto& client : clients) {
    for (const auto& [what, n] : client->counts().refusals) {
      std::printf("  refused or failed: %s x%lld\n", what.c_str(),
                  static_cast<long long>(n));
    }
    for (const std::string& e : client->counts().errors) {
      std::printf("  ERROR: %s\n", e.c_str());
    }
  }
  return false;
}

}  // namespace khet::load
