// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_events.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "service/base/status_macros.h"
#include "service/events/shared_event.h"
#include "service/http/compact_view.h"
#include "service/http/http_request.h"
#include "service/http/http_status.h"
#include "service/http/json_codec.h"

namespace khet {
namespace {

constexpr int64_t kMaxVersion = int64_t{1} << 53;

absl::Status ShuttingDown(int64_t version) {
  return absl::UnavailableError(absl::StrCat(
      "khetd is shutting down; ask again after version ", version));
}

// The event's JSON text (ToJson), made once for every watcher.
const std::string& EventJson(const SharedEvent& event) {
  return event.Json([](const v1::Event& e) { return ToJson(e); });
}

// "moveMade", "seatChanged", ...: the name of the event's kind in JSON.
std::string KindName(const v1::Event& event) {
  const google::protobuf::FieldDescriptor* field =
      event.GetReflection()->GetOneofFieldDescriptor(
          event, v1::Event::descriptor()->FindOneofByName("kind"));
  return field == nullptr ? "event" : field->json_name();
}

// Hands `method` of the object behind `weak` to the server's event loop, if
// it still lives when the loop gets to it. Holds no reference meanwhile, so
// the object is never destroyed on the thread that wakes it. A waiting
// request's wake-up and answer touch no store: they run on the event loop,
// never behind calls that wait for the store on the workers.
template <typename T>
std::function<void()> OnEventLoop(const RouteContext& context,
                                  std::weak_ptr<T> weak, void (T::*method)()) {
  return [loop = context.timers, weak = std::move(weak), method] {
    boost::asio::post(loop, [weak, method] {
      if (std::shared_ptr<T> self = weak.lock()) ((*self).*method)();
    });
  };
}

// What a request waiting for events holds, given back together: its place
// among the waiting requests, its session's watch and its timer. Every
// member but the constants is the waiting request's to guard with mu_.
class EventWait {
 protected:
  // Takes a place and watches the call's session after `after`; the place
  // cancels the watch when the gateway shuts down.
  static absl::Status Begin(const RouteContext& context, const HttpCall& call,
                            int64_t after,
                            std::unique_ptr<WaitingRequests::Place>* place,
                            std::unique_ptr<EventStream>* stream) {
    KHET_ASSIGN_OR_RETURN(*place, context.waiting->Enter());
    v1::WatchRequest request;
    request.set_session_id(call.session_id);
    request.set_after_version(after);
    KHET_ASSIGN_OR_RETURN(*stream, context.core->Watch(request));
    (*place)->Watch(stream->get());
    return absl::OkStatus();
  }

  EventWait(const RouteContext& context, HttpCall& call,
            std::unique_ptr<WaitingRequests::Place> place,
            std::unique_ptr<EventStream> stream)
      : context_(context),
        exchange_(call.exchange),
        log_(call.log),
        stream_(std::move(stream)),
        place_(std::move(place)),
        timer_(context.timers) {}

  // Gives the place and the watch back at once.
  void ReleaseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    done_ = true;
    place_.reset();  // first: the place must not name a freed stream
    stream_.reset();
    timer_.cancel();
  }

  const RouteContext context_;
  const std::shared_ptr<HttpExchange> exchange_;
  const std::shared_ptr<RequestLog> log_;
  Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  // The stream before the place, so that the place goes first.
  std::unique_ptr<EventStream> stream_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<WaitingRequests::Place> place_ ABSL_GUARDED_BY(mu_);
  boost::asio::steady_timer timer_ ABSL_GUARDED_BY(mu_);
};

// A long poll waiting for events: answered by the first of an event, its
// deadline, the stream's end and shutdown; forgotten if the client leaves.
class PollWait : public EventWait,
                 public std::enable_shared_from_this<PollWait> {
 public:
  // Answers or waits; or the error to answer with at once.
  static absl::Status Start(const RouteContext& context, HttpCall& call,
                            int64_t after, bool compact, absl::Duration wait) {
    std::unique_ptr<WaitingRequests::Place> place;
    std::unique_ptr<EventStream> stream;
    KHET_RETURN_IF_ERROR(Begin(context, call, after, &place, &stream));
    call.answered_later = true;
    std::make_shared<PollWait>(context, call, after, compact,
                               absl::Now() + wait, std::move(place),
                               std::move(stream))
        ->Run();
    return absl::OkStatus();
  }

  PollWait(const RouteContext& context, HttpCall& call, int64_t after,
           bool compact, absl::Time deadline,
           std::unique_ptr<WaitingRequests::Place> place,
           std::unique_ptr<EventStream> stream)
      : EventWait(context, call, std::move(place), std::move(stream)),
        after_(after),
        compact_(compact),
        deadline_(deadline) {}

 private:
  // On a worker.
  void Run() {
    std::weak_ptr<PollWait> weak = weak_from_this();
    exchange_->OnGone(OnEventLoop(context_, weak, &PollWait::Gone));
    MutexLock lock(&mu_);
    timer_.expires_at(std::chrono::steady_clock::now() +
                      absl::ToChronoNanoseconds(deadline_ - absl::Now()));
    // The timer's wait keeps the poll alive until it is answered.
    timer_.async_wait(
        [self = shared_from_this()](const boost::system::error_code& ec) {
          if (!ec) self->Read();
        });
    ReadLocked();
  }

  void Read() {
    MutexLock lock(&mu_);
    ReadLocked();
  }

  void ReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (done_) return;
    while (events_.size() < kMaxPollEvents) {
      absl::StatusOr<SharedEventPtr> next =
          stream_->NextShared(absl::ZeroDuration());
      if (!next.ok()) {
        if (!events_.empty()) break;  // answer with what came before
        return FinishLocked(context_.waiting->shutting_down()
                                ? ShuttingDown(after_)
                                : next.status());
      }
      if (*next == nullptr) break;
      events_.push_back(*std::move(next));
    }
    if (!events_.empty() || absl::Now() >= deadline_) {
      return FinishLocked(absl::OkStatus());
    }
    stream_->NotifyWhenReady(
        OnEventLoop(context_, weak_from_this(), &PollWait::Read));
  }

  void FinishLocked(const absl::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    HttpResponse response;
    if (!status.ok()) {
      response = ErrorResponse(status, HttpStatusFor(status.code()));
    } else if (compact_) {
      // Cut to fit each poll's limit, so not shared between watchers.
      std::vector<v1::Event> events;
      events.reserve(events_.size());
      for (const SharedEventPtr& event : events_) {
        events.push_back(event->event());
      }
      // A full batch may have more behind it.
      response.body =
          CompactEvents(events, after_, events_.size() == kMaxPollEvents).json;
    } else {
      std::string& body = response.body;
      body = R"({"events":[)";
      for (size_t i = 0; i < events_.size(); ++i) {
        if (i > 0) body += ',';
        body += EventJson(*events_[i]);
      }
      absl::StrAppend(&body, R"(],"version":")",
                      events_.empty() ? after_ : events_.back()->version(),
                      "\"}");
    }
    log_->Done(response.status, status);
    exchange_->Respond(std::move(response));
    ReleaseLocked();
  }

  void Gone() {
    MutexLock lock(&mu_);
    if (done_) return;
    log_->Done(499, absl::CancelledError("the client went away"));
    ReleaseLocked();
  }

  const int64_t after_;
  const bool compact_;
  const absl::Time deadline_;
  std::vector<SharedEventPtr> events_ ABSL_GUARDED_BY(mu_);
};

// An event stream: each event as it comes, a comment after a quiet
// keep-alive period, until the session is deleted, the watcher falls
// behind, khetd shuts down or the client leaves.
class StreamWait : public EventWait,
                   public std::enable_shared_from_this<StreamWait> {
 public:
  // Starts the stream; or the error to answer with at once.
  static absl::Status Start(const RouteContext& context, HttpCall& call,
                            int64_t after) {
    std::unique_ptr<WaitingRequests::Place> place;
    std::unique_ptr<EventStream> stream;
    KHET_RETURN_IF_ERROR(Begin(context, call, after, &place, &stream));
    call.answered_later = true;
    std::make_shared<StreamWait>(context, call, after, std::move(place),
                                 std::move(stream))
        ->Run();
    return absl::OkStatus();
  }

  StreamWait(const RouteContext& context, HttpCall& call, int64_t after,
             std::unique_ptr<WaitingRequests::Place> place,
             std::unique_ptr<EventStream> stream)
      : EventWait(context, call, std::move(place), std::move(stream)),
        sent_(after) {}

 private:
  // On a worker.
  void Run() {
    exchange_->OnGone(
        OnEventLoop(context_, weak_from_this(), &StreamWait::Gone));
    MutexLock lock(&mu_);
    HttpResponse head;
    head.content_type = "text/event-stream";
    head.headers.emplace_back("Cache-Control", "no-cache");
    exchange_->StartStream(std::move(head));
    ArmTimerLocked();
    PumpLocked();
  }

  void ArmTimerLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    timer_.expires_after(
        absl::ToChronoNanoseconds(context_.options->stream_keepalive));
    // The timer's wait keeps the stream alive until it ends.
    timer_.async_wait(
        [self = shared_from_this()](const boost::system::error_code& ec) {
          if (!ec) self->Tick();
        });
  }

  void Pump() {
    MutexLock lock(&mu_);
    PumpLocked();
  }

  void PumpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (!done_) {
      absl::StatusOr<SharedEventPtr> next =
          stream_->NextShared(absl::ZeroDuration());
      if (!next.ok()) return StreamEndedLocked(next.status());
      if (*next == nullptr) {
        stream_->NotifyWhenReady(
            OnEventLoop(context_, weak_from_this(), &StreamWait::Pump));
        return;
      }
      const SharedEvent& event = **next;
      if (!WriteLocked(absl::StrCat("id: ", event.version(),
                                    "\nevent: ", KindName(event.event()),
                                    "\ndata: ", EventJson(event), "\n\n"))) {
        return;
      }
      sent_ = event.version();
    }
  }

  // The comment after a quiet period, then the next period.
  void Tick() {
    MutexLock lock(&mu_);
    if (done_) return;
    if (!wrote_since_tick_ && !WriteLocked(": keep-alive\n\n")) return;
    wrote_since_tick_ = false;
    ArmTimerLocked();
  }

  // False (and the stream is over) if the client is gone.
  bool WriteLocked(std::string text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!exchange_->Write(std::move(text))) {
      EndLocked(absl::CancelledError(absl::StrCat(
          "the client went away; events were sent up to version ", sent_)));
      return false;
    }
    wrote_since_tick_ = true;
    return true;
  }

  void StreamEndedLocked(const absl::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::Status end;
    if (context_.waiting->shutting_down()) {
      end = ShuttingDown(sent_);
      exchange_->Write(": khetd is shutting down\n\n");
    } else if (absl::IsNotFound(status)) {
      end = absl::OkStatus();  // the session was deleted
    } else {
      end = status;
      exchange_->Write(absl::StrCat(
          "event: error\ndata: ",
          ErrorJson(status, HttpStatusFor(status.code())), "\n\n"));
    }
    exchange_->EndStream();
    EndLocked(end);
  }

  void Gone() {
    MutexLock lock(&mu_);
    if (done_) return;
    EndLocked(absl::CancelledError(absl::StrCat(
        "the client went away; events were sent up to version ", sent_)));
  }

  void EndLocked(const absl::Status& end) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    log_->Done(HttpStatusFor(end.code()), end);
    ReleaseLocked();
  }

  int64_t sent_ ABSL_GUARDED_BY(mu_);  // the version of the last event sent
  bool wrote_since_tick_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

RouteHandler LongPollHandler(const RouteContext& context) {
  return [context](HttpCall& call) -> absl::Status {
    KHET_ASSIGN_OR_RETURN(
        Query query,
        Query::Read(call.request, {"afterVersion", "waitSeconds", "view"}));
    KHET_ASSIGN_OR_RETURN(const int64_t after,
                          query.Number("afterVersion", 0, 0, kMaxVersion));
    KHET_ASSIGN_OR_RETURN(
        const int64_t wait_seconds,
        query.Number("waitSeconds", kDefaultWaitSeconds, 0, kMaxWaitSeconds));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    return PollWait::Start(context, call, after, compact,
                           absl::Seconds(wait_seconds));
  };
}

RouteHandler EventStreamHandler(const RouteContext& context) {
  return [context](HttpCall& call) -> absl::Status {
    KHET_ASSIGN_OR_RETURN(Query query,
                          Query::Read(call.request, {"afterVersion"}));
    KHET_ASSIGN_OR_RETURN(int64_t after,
                          query.Number("afterVersion", 0, 0, kMaxVersion));
    if (call.request.HasHeader("Last-Event-ID")) {
      KHET_ASSIGN_OR_RETURN(
          after,
          ParseNumber("the Last-Event-ID header",
                      call.request.Header("Last-Event-ID"), 0, kMaxVersion));
    }
    return StreamWait::Start(context, call, after);
  };
}

}  // namespace khet
