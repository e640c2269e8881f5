// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Fuzzes the HTTP gateway's route layer in process (no sockets): requests
// whose method, path, query, headers and body come from the fuzz bytes go
// through RouteDispatcher and ApiRoutes to a SessionService on the memory
// store, which holds a session with both seats taken. A request still
// waiting once its work is done (a long poll, an event stream) is ended by
// its client going away. Checks for every answer:
// - nothing crashes, and every request that was not given up is answered;
// - its status is one docs/http-api.md lists for the routes (200, 400, 401,
//   403, 404, 405, 409, 429, 499, 501, 503, 504; never 500);
// - an error's body is the JSON error object, {"error": {"code", "status",
//   "message"}}, whose status is the answer's and whose code is the one
//   that status stands for; a 200 answer in JSON is well-formed JSON.
#include <fuzzer/FuzzedDataProvider.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "boost/asio/io_context.hpp"
#include "engine/movegen.h"
#include "fuzz/fuzz_check.h"
#include "nlohmann/json.hpp"
#include "service/core/session_service.h"
#include "service/http/gateway_options.h"
#include "service/http/http_routes.h"
#include "service/http/http_server.h"
#include "service/http/http_status.h"
#include "service/http/route_dispatch.h"
#include "service/http/waiting_requests.h"
#include "service/search/test_fakes.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

// An exchange that keeps the answer; the harness ends it by going away.
class FakeExchange final : public HttpExchange {
 public:
  explicit FakeExchange(HttpRequest request) : request_(std::move(request)) {}

  const HttpRequest& request() const override { return request_; }
  void Respond(HttpResponse response) override {
    KHET_FUZZ_CHECK(!answered_, "answered twice");
    answered_ = true;
    response_ = std::move(response);
  }
  void StartStream(HttpResponse head) override {
    KHET_FUZZ_CHECK(!answered_, "answered twice");
    answered_ = true;
    streaming_ = true;
    response_ = std::move(head);
  }
  bool Write(std::string) override {
    KHET_FUZZ_CHECK(streaming_, "a piece without a stream");
    return !gone_;
  }
  void EndStream() override {
    KHET_FUZZ_CHECK(streaming_, "the end of no stream");
  }
  bool gone() const override { return gone_; }
  void OnGone(std::function<void()> on_gone) override {
    if (gone_) return on_gone();
    on_gone_ = std::move(on_gone);
  }

  // The client leaves.
  void GoAway() {
    gone_ = true;
    if (on_gone_) std::exchange(on_gone_, nullptr)();
  }

  bool answered() const { return answered_; }
  bool streaming() const { return streaming_; }
  const HttpResponse& response() const { return response_; }

 private:
  const HttpRequest request_;
  HttpResponse response_;
  bool answered_ = false;
  bool streaming_ = false;
  bool gone_ = false;
  std::function<void()> on_gone_;
};

// The first legal move at once: the search is not what this target fuzzes.
SearchResult FirstMove(const Position& pos, const SearchLimits&,
                       const SearchStyle&, const std::atomic<bool>*) {
  MoveList list;
  GenerateMoves(pos, &list);
  SearchResult result;
  if (list.size > 0) {
    result.best_move = list.moves[0];
    result.principal_variation.push_back(result.best_move);
    result.depth = 1;
  }
  return result;
}

const std::set<int>& DocumentedStatuses() {
  static const auto* const statuses = new std::set<int>{
      200, 400, 401, 403, 404, 405, 409, 429, 499, 501, 503, 504};
  return *statuses;
}

void CheckAnswer(const FakeExchange& exchange) {
  const HttpRequest& request = exchange.request();
  const HttpResponse& response = exchange.response();
  const std::string what =
      absl::StrCat(request.method, " ", request.target, " ", request.body,
                   " answered ", response.status, " ", response.body);
  KHET_FUZZ_CHECK(DocumentedStatuses().count(response.status) == 1, what);
  if (response.status == 200) {
    if (response.content_type == "application/json") {
      KHET_FUZZ_CHECK(nlohmann::json::accept(response.body), what);
    }
    return;
  }
  KHET_FUZZ_CHECK(response.content_type == "application/json", what);
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr,
                                                    /*allow_exceptions=*/false);
  KHET_FUZZ_CHECK(body.is_object() && body.size() == 1 &&
                      body.contains("error") && body["error"].is_object(),
                  what);
  const nlohmann::json& error = body["error"];
  KHET_FUZZ_CHECK(error.size() == 3 && error.contains("code") &&
                      error["code"].is_string() && error.contains("status") &&
                      error["status"] == response.status &&
                      error.contains("message") && error["message"].is_string(),
                  what);
  // The code is the one the status stands for; 404 and 405 of unknown
  // routes and methods are NOT_FOUND and UNIMPLEMENTED.
  const std::string code = error["code"];
  absl::StatusCode parsed = absl::StatusCode::kUnknown;
  for (int c = 0; c <= 16; ++c) {
    if (absl::StatusCodeToString(static_cast<absl::StatusCode>(c)) == code) {
      parsed = static_cast<absl::StatusCode>(c);
    }
  }
  KHET_FUZZ_CHECK(HttpStatusFor(parsed) == response.status ||
                      (response.status == 405 &&
                       parsed == absl::StatusCode::kUnimplemented),
                  what);
}

// The route paths, "{id}" to fill in.
constexpr const char* kPaths[] = {
    "/v1/setups",
    "/v1/colorSchemes",
    "/v1/levels",
    "/v1/sessions",
    "/v1/sessions/{id}",
    "/v1/sessions/{id}:join",
    "/v1/sessions/{id}:leave",
    "/v1/sessions/{id}:seatComputer",
    "/v1/sessions/{id}:chooseSetup",
    "/v1/sessions/{id}:move",
    "/v1/sessions/{id}/legalMoves",
    "/v1/sessions/{id}:suggest",
    "/v1/sessions/{id}:resign",
    "/v1/sessions/{id}:offerDraw",
    "/v1/sessions/{id}:acceptDraw",
    "/v1/sessions/{id}:claimRepetitionDraw",
    "/v1/sessions/{id}:updateSettings",
    "/v1/sessions/{id}:reset",
    "/v1/sessions/{id}/events",
    "/v1/sessions/{id}/events:stream",
    "/v1/sessions/{id}/board",
    "/v1/sessions/{id}/board.svg",
    "/",
    "/index.html",
};
constexpr const char* kMethods[] = {"GET", "POST", "DELETE", "HEAD", "PUT"};
constexpr const char* kHeaders[] = {"Authorization", "X-Khet-Token",
                                    "Last-Event-ID", "Content-Type"};

class Harness {
 public:
  explicit Harness(FuzzedDataProvider& in)
      : in_(in), waiting_(/*max_waiting=*/4) {
    ServiceOptions options;
    options.store = &store_;
    options.random = &random_;
    options.search = FirstMove;
    options.limits.max_sessions = 8;
    options.limits.max_watchers = 8;
    options.limits.computer_threads = 1;
    core_ = *SessionService::Create(options);
    gateway_options_.suggest_timeout = absl::Milliseconds(20);
    gateway_options_.max_suggest_timeout = absl::Milliseconds(50);
    recorder_.sink = [](const std::string&) {};

    RouteContext context;
    context.core = core_.get();
    context.waiting = &waiting_;
    context.options = &gateway_options_;
    context.timers = io_.get_executor();
    context.run_on_worker = [this](std::function<void()> task) {
      tasks_.push_back(std::move(task));
    };
    dispatcher_.emplace(ApiRoutes(context), &recorder_);

    // A session with both seats taken, so that moves can be played.
    v1::CreateSessionRequest create;
    create.set_name("fuzz");
    const v1::CreateSessionResponse created = *core_->CreateSession(create);
    id_ = created.session().id();
    tokens_.push_back(created.owner_token());
    for (const char* name : {"alice", "bob"}) {
      v1::JoinSeatRequest join;
      join.set_session_id(id_);
      join.set_player_name(name);
      tokens_.push_back(core_->JoinSeat(join)->player_token());
    }
  }

  ~Harness() {
    waiting_.Shutdown();
    Settle();
  }

  void Run() {
    for (int i = 0; i < 8 && in_.remaining_bytes() > 0; ++i) {
      auto exchange = std::make_shared<FakeExchange>(NextRequest());
      dispatcher_->Dispatch(exchange);
      Settle();
      // Only long polls and event streams may wait; their clients leave.
      const std::string& path = exchange->request().path;
      const bool waits = absl::EndsWith(path, "/events") ||
                         absl::EndsWith(path, "/events:stream");
      KHET_FUZZ_CHECK(
          exchange->answered() || waits,
          absl::StrCat(exchange->request().method, " ",
                       exchange->request().target, " was never answered"));
      if (!exchange->answered() || exchange->streaming()) {
        exchange->GoAway();
        Settle();
      }
      if (exchange->answered()) CheckAnswer(*exchange);
    }
  }

 private:
  // Runs the workers' tasks and the due timers until none is left.
  void Settle() {
    for (int rounds = 0; rounds < 100; ++rounds) {
      io_.restart();
      const size_t handlers = io_.poll();
      if (tasks_.empty() && handlers == 0) return;
      while (!tasks_.empty()) {
        std::function<void()> task = std::move(tasks_.front());
        tasks_.pop_front();
        task();
      }
    }
  }

  std::string Token() {
    const size_t pick = in_.ConsumeIntegralInRange<size_t>(0, tokens_.size());
    return pick < tokens_.size() ? tokens_[pick]
                                 : in_.ConsumeRandomLengthString(48);
  }

  HttpRequest NextRequest() {
    HttpRequest request;
    const size_t method = in_.ConsumeIntegralInRange<size_t>(0, 5);
    request.method =
        method < 5 ? kMethods[method] : in_.ConsumeRandomLengthString(8);
    const size_t path = in_.ConsumeIntegralInRange<size_t>(0, 24);
    if (path < 24) {
      std::string id = id_;
      switch (in_.ConsumeIntegralInRange(0, 7)) {
        case 0:
          id = "nosuch";
          break;
        case 1:
          id = in_.ConsumeRandomLengthString(12);
          break;
      }
      request.path = absl::StrReplaceAll(kPaths[path], {{"{id}", id}});
    } else {
      request.path = in_.ConsumeRandomLengthString(40);
    }
    request.target = request.path;
    if (in_.ConsumeBool()) {
      absl::StrAppend(&request.target, "?", in_.ConsumeRandomLengthString(40));
    }
    for (int n = in_.ConsumeIntegralInRange(0, 3); n > 0; --n) {
      const size_t name = in_.ConsumeIntegralInRange<size_t>(0, 4);
      std::string value;
      switch (in_.ConsumeIntegralInRange(0, 3)) {
        case 0:
          value = absl::StrCat("Bearer ", Token());
          break;
        case 1:
          value = Token();
          break;
        default:
          value = in_.ConsumeRandomLengthString(48);
      }
      request.headers.emplace_back(
          name < 4 ? kHeaders[name] : in_.ConsumeRandomLengthString(16),
          std::move(value));
    }
    request.body = in_.ConsumeRandomLengthString(512);
    request.remote_address = "127.0.0.1";
    return request;
  }

  FuzzedDataProvider& in_;
  MemoryStore store_;
  FakeRandom random_;
  std::unique_ptr<SessionService> core_;
  WaitingRequests waiting_;
  HttpGatewayOptions gateway_options_;
  std::deque<std::function<void()>> tasks_;
  // Destroyed before the service: pending waits hold its streams.
  boost::asio::io_context io_;
  RequestRecorder recorder_;  // lines dropped, nothing counted
  std::optional<RouteDispatcher> dispatcher_;
  std::string id_;
  std::vector<std::string> tokens_;
};

}  // namespace
}  // namespace khet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  khet::Harness harness(in);
  harness.Run();
  return 0;
}
