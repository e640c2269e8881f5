#include "service/http/http_events.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/http/compact_view.h"
#include "service/http/http_request.h"
#include "service/http/http_status.h"
#include "service/http/json_codec.h"
#include "service/status_macros.h"

namespace khet {
namespace {

constexpr int64_t kMaxVersion = int64_t{1} << 53;

absl::Status ShuttingDown(int64_t version) {
  return absl::UnavailableError(absl::StrCat(
      "khetd is shutting down; ask again after version ", version));
}

// "moveMade", "seatChanged", ...: the name of the event's kind in JSON.
std::string KindName(const v1::Event& event) {
  const google::protobuf::FieldDescriptor* field =
      event.GetReflection()->GetOneofFieldDescriptor(
          event, v1::Event::descriptor()->FindOneofByName("kind"));
  return field == nullptr ? "event" : field->json_name();
}

}  // namespace

RouteHandler LongPollHandler(const RouteContext& context) {
  return [core = context.core,
          waiting = context.waiting](HttpCall& call) -> absl::Status {
    KHET_ASSIGN_OR_RETURN(
        Query query,
        Query::Read(call.request, {"afterVersion", "waitSeconds", "view"}));
    KHET_ASSIGN_OR_RETURN(const int64_t after,
                          query.Number("afterVersion", 0, 0, kMaxVersion));
    KHET_ASSIGN_OR_RETURN(
        const int64_t wait_seconds,
        query.Number("waitSeconds", kDefaultWaitSeconds, 0, kMaxWaitSeconds));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());

    KHET_ASSIGN_OR_RETURN(std::unique_ptr<WaitingRequests::Place> place,
                          waiting->Enter());
    v1::WatchRequest request;
    request.set_session_id(call.session_id);
    request.set_after_version(after);
    KHET_ASSIGN_OR_RETURN(std::unique_ptr<EventStream> stream,
                          core->Watch(request));
    place->Watch(stream.get());

    // The events there are now; if none, the first within the wait.
    std::vector<v1::Event> events;
    const absl::Time deadline = absl::Now() + absl::Seconds(wait_seconds);
    absl::Duration timeout = absl::ZeroDuration();
    while (events.size() < kMaxPollEvents) {
      absl::StatusOr<std::optional<v1::Event>> next = stream->Next(timeout);
      if (!next.ok()) {
        if (!events.empty()) break;  // answer with what came before
        if (waiting->shutting_down()) return ShuttingDown(after);
        return next.status();
      }
      if (next->has_value()) {
        events.push_back(**std::move(next));
        timeout = absl::ZeroDuration();
        continue;
      }
      if (!events.empty()) break;
      const absl::Time now = absl::Now();
      if (now >= deadline) break;
      timeout = deadline - now;
    }

    if (compact) {
      // A full batch may have more behind it.
      Reply(call,
            CompactEvents(events, after, events.size() == kMaxPollEvents).json);
      return absl::OkStatus();
    }
    std::string body = R"({"events":[)";
    for (size_t i = 0; i < events.size(); ++i) {
      if (i > 0) body += ',';
      body += ToJson(events[i]);
    }
    absl::StrAppend(&body, R"(],"version":")",
                    events.empty() ? after : events.back().version(), "\"}");
    Reply(call, std::move(body));
    return absl::OkStatus();
  };
}

namespace {

// What an event stream keeps while the response is written.
struct StreamState {
  std::unique_ptr<WaitingRequests::Place> place;
  std::unique_ptr<EventStream> stream;
  std::shared_ptr<RequestLog> log;
  WaitingRequests* waiting = nullptr;
  absl::Duration keepalive;
  int64_t sent = 0;                     // the version of the last event sent
  absl::Status end = absl::OkStatus();  // why the stream ended
};

bool Write(httplib::DataSink& sink, const std::string& text) {
  return sink.write(text.data(), text.size());
}

// Writes the next event or a keep-alive comment, or ends the response
// (sink.done()) when the stream is over; false if the client went away.
bool StreamStep(StreamState& state, httplib::DataSink& sink) {
  absl::StatusOr<std::optional<v1::Event>> next =
      state.stream->Next(state.keepalive);
  if (!next.ok()) {
    if (state.waiting->shutting_down()) {
      state.end = ShuttingDown(state.sent);
      Write(sink, ": khetd is shutting down\n\n");
    } else if (absl::IsNotFound(next.status())) {
      state.end = absl::OkStatus();  // the session was deleted
    } else {
      state.end = next.status();
      Write(sink, absl::StrCat("event: error\ndata: ",
                               ErrorJson(next.status(),
                                         HttpStatusFor(next.status().code())),
                               "\n\n"));
    }
    sink.done();
    return true;  // done() ends the response
  }
  std::string text;
  if (next->has_value()) {
    const v1::Event& event = **next;
    text = absl::StrCat("id: ", event.version(), "\nevent: ", KindName(event),
                        "\ndata: ", ToJson(event), "\n\n");
  } else {
    text = ": keep-alive\n\n";
  }
  if (!Write(sink, text)) {
    state.end = absl::CancelledError(absl::StrCat(
        "the client went away; events were sent up to version ", state.sent));
    return false;
  }
  if (next->has_value()) state.sent = (*next)->version();
  return true;
}

}  // namespace

RouteHandler EventStreamHandler(const RouteContext& context) {
  return [core = context.core, waiting = context.waiting,
          keepalive = context.options->stream_keepalive](
             HttpCall& call) -> absl::Status {
    KHET_ASSIGN_OR_RETURN(Query query,
                          Query::Read(call.request, {"afterVersion"}));
    KHET_ASSIGN_OR_RETURN(int64_t after,
                          query.Number("afterVersion", 0, 0, kMaxVersion));
    if (call.request.has_header("Last-Event-ID")) {
      KHET_ASSIGN_OR_RETURN(
          after, ParseNumber("the Last-Event-ID header",
                             call.request.get_header_value("Last-Event-ID"), 0,
                             kMaxVersion));
    }
    auto state = std::make_shared<StreamState>();
    KHET_ASSIGN_OR_RETURN(state->place, waiting->Enter());
    v1::WatchRequest request;
    request.set_session_id(call.session_id);
    request.set_after_version(after);
    KHET_ASSIGN_OR_RETURN(state->stream, core->Watch(request));
    state->place->Watch(state->stream.get());
    state->log = call.log;
    state->waiting = waiting;
    state->keepalive = keepalive;
    state->sent = after;

    call.log_later = true;
    call.response.status = 200;
    call.response.set_header("Cache-Control", "no-cache");
    call.response.set_chunked_content_provider(
        "text/event-stream",
        [state](size_t, httplib::DataSink& sink) {
          return StreamStep(*state, sink);
        },
        [state](bool success) {
          if (!success && state->end.ok()) {  // the server cut it short
            state->end = state->waiting->shutting_down()
                             ? ShuttingDown(state->sent)
                             : absl::CancelledError("the connection ended");
          }
          state->log->Done(HttpStatusFor(state->end.code()), state->end);
          state->place.reset();  // forgets the stream before it goes
          state->stream.reset();
        });
    return absl::OkStatus();
  };
}

}  // namespace khet
