// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// KhetGrpcService's Watch: each watch a strand of steps over the core's
// event stream, without a thread of its own; and Shutdown, which ends the
// watches that wait.
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "service/grpc/event_bytes.h"
#include "service/grpc/grpc_service.h"
#include "service/grpc/request_bytes.h"
#include "service/grpc/request_log.h"
#include "service/grpc/tsan_hand_over.h"

namespace khet {

// Serves one Watch without a thread of its own, as a strand of steps that
// never overlap: open the stream; read it (NextShared) until an event comes,
// then write that one event's shared bytes (StartWrite) and read again once
// it is written (OnWriteDone); when nothing is ready, ask the stream to say
// when something is (NotifyWhenReady) and stop until it does; finish once
// the stream ends. Steps that may read the store (open, read) run on the store
// threads when the service has them, else on gRPC's threads; a publisher
// that wakes the strand only hands it over (to the store threads, or to the
// few wake threads). The client's cancelling and Shutdown end a waiting
// strand at once, and any other at its next step.
class KhetGrpcService::WatchReactor final
    : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  // `parsed`: the request's parse; if it read, the call's admission
  // (KhetGrpcService::Admit).
  WatchReactor(KhetGrpcService* service, grpc::CallbackServerContext& context,
               v1::WatchRequest request, absl::Status parsed)
      : service_(service),
        request_(std::move(request)),
        log_(service, "Watch", request_.session_id()),
        sent_(request_.after_version()) {
    log_.set_peer(context);
    parsed_ = parsed.ok() ? service_->Admit(context, log_) : std::move(parsed);
  }

  // The first step; called once, by Watch.
  void Start() {
    if (!parsed_.ok()) {
      End(parsed_);
      return;
    }
    if (service_->store_pool_ != nullptr) {
      service_->watch_pool_->Schedule([this] { Open(); });
    } else {
      Open();
    }
  }

  // For OnCancel and Shutdown: if the strand waits for events, takes it
  // over and returns true (the caller then calls EndStopped); else cancels
  // the stream, so the strand ends at its next step.
  bool Interrupt() {
    EventStream* stream = nullptr;
    {
      MutexLock lock(&mu_);
      if (state_ == State::kWaiting) {
        state_ = State::kEnding;
        return true;
      }
      if (state_ != State::kEnding) stream = stream_.get();
    }
    // The stream lives until OnDone, which comes after the strand ends.
    if (stream != nullptr) stream->Cancel();
    return false;
  }

  // Ends the strand for a cancelled stream, saying why.
  void EndStopped() {
    int64_t sent;
    {
      MutexLock lock(&mu_);
      sent = sent_;
    }
    End(service_->shutting_down_
            ? absl::UnavailableError(absl::StrCat(
                  "khetd is shutting down; watch again after version ", sent))
            : absl::CancelledError(absl::StrCat(
                  "the client cancelled the watch after version ", sent)));
  }

  void OnWriteDone(bool ok) override {
    TakeBackFromGrpc(this);
    int64_t sent;
    {
      MutexLock lock(&mu_);
      if (ok) sent_ = writing_;
      sent = sent_;
      state_ = State::kReading;
    }
    if (!ok) {
      End(absl::CancelledError(absl::StrCat(
          "the client went away; events were sent up to version ", sent)));
      return;
    }
    Resume();
  }

  void OnCancel() override {
    TakeBackFromGrpc(this);
    {
      MutexLock lock(&mu_);
      client_cancelled_ = true;
    }
    if (Interrupt()) EndStopped();
  }

  // After the strand ended and gRPC is done with the call.
  void OnDone() override {
    TakeBackFromGrpc(this);
    {
      MutexLock lock(&service_->mu_);
      service_->watches_.erase(this);
    }
    std::unique_ptr<EventStream> stream;
    {
      MutexLock lock(&mu_);
      stream = std::move(stream_);
    }
    stream.reset();  // waits for a NotifyWhenReady callback still running
    delete this;
  }

 private:
  // Where the strand is. kArming: asking the stream to say when it is
  // ready, which may answer at once on this thread or from a publisher's.
  enum class State { kOpening, kReading, kWriting, kArming, kWaiting, kEnding };

  // Step: the core's stream, then its events.
  void Open() {
    absl::StatusOr<std::unique_ptr<EventStream>> stream =
        service_->core_->Watch(request_);
    if (!stream.ok()) {
      End(stream.status());
      return;
    }
    EventStream* const opened = stream->get();
    bool cancelled;
    {
      MutexLock lock(&mu_);
      stream_ = *std::move(stream);
      state_ = State::kReading;
      cancelled = client_cancelled_;
    }
    {
      MutexLock lock(&service_->mu_);
      service_->watches_.insert(this);
      cancelled = cancelled || service_->shutting_down_;
    }
    if (cancelled) opened->Cancel();
    Read();
  }

  // Step: reads until it writes an event, waits or ends.
  void Read() {
    EventStream* stream;
    {
      MutexLock lock(&mu_);
      stream = stream_.get();
    }
    while (true) {
      absl::StatusOr<SharedEventPtr> next =
          stream->NextShared(absl::ZeroDuration());
      if (!next.ok()) {
        if (absl::IsCancelled(next.status())) {
          EndStopped();
        } else {
          End(next.status());
        }
        return;
      }
      if (*next != nullptr) {
        {
          MutexLock lock(&mu_);
          writing_ = (*next)->version();
          bytes_ = EventBytes(*std::move(next));
          state_ = State::kWriting;
        }
        HandOverToGrpc(this);
        StartWrite(&bytes_);  // untouched until OnWriteDone
        return;
      }
      {
        MutexLock lock(&mu_);
        state_ = State::kArming;
        woken_ = false;
      }
      stream->NotifyWhenReady([this] { Wake(); });
      MutexLock lock(&mu_);
      if (!woken_) {
        state_ = State::kWaiting;  // Wake resumes the strand
        return;
      }
      state_ = State::kReading;  // ready already: read on
    }
  }

  // The stream's ready callback: hands the strand over, never reads.
  void Wake() {
    {
      MutexLock lock(&mu_);
      if (state_ == State::kArming) {
        woken_ = true;  // the arming step reads on
        return;
      }
      if (state_ != State::kWaiting) return;  // ended meanwhile
      state_ = State::kReading;
    }
    service_->watch_pool_->Schedule([this] { Read(); });
  }

  // Reads on after a write: on a watch thread if the store may wait, else
  // right here.
  void Resume() {
    if (service_->store_pool_ != nullptr) {
      service_->watch_pool_->Schedule([this] { Read(); });
    } else {
      Read();
    }
  }

  // The last step: logs the watch's end and finishes the call, after which
  // the reactor may be gone.
  void End(const absl::Status& status) {
    {
      MutexLock lock(&mu_);
      state_ = State::kEnding;
    }
    const grpc::Status done = log_.Done(status);
    HandOverToGrpc(this);
    Finish(done);
  }

  KhetGrpcService* const service_;
  const v1::WatchRequest request_;
  // Whether request_ is the client's and the call was admitted.
  absl::Status parsed_;
  RequestLog log_;  // used by End only
  Mutex mu_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kOpening;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;  // the stream was ready at once
  bool client_cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<EventStream> stream_ ABSL_GUARDED_BY(mu_);
  grpc::ByteBuffer bytes_ ABSL_GUARDED_BY(mu_);  // the event being written
  int64_t writing_ ABSL_GUARDED_BY(mu_) = 0;     // its version
  int64_t sent_ ABSL_GUARDED_BY(mu_);  // the last event's version written
};

void KhetGrpcService::Shutdown() {
  std::vector<WatchReactor*> waiting;
  {
    MutexLock lock(&mu_);
    shutting_down_ = true;
    for (WatchReactor* watch : watches_) {
      if (watch->Interrupt()) waiting.push_back(watch);
    }
  }
  // Taken over: each lives until its call is finished here.
  for (WatchReactor* watch : waiting) watch->EndStopped();
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* KhetGrpcService::Watch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  v1::WatchRequest parsed;
  const absl::Status status = ParseRequest(*request, &parsed);
  auto* reactor = new WatchReactor(this, *context, std::move(parsed),
                                   status);  // deletes itself, admits
  HandOverToGrpc(reactor);
  reactor->Start();
  return reactor;
}

}  // namespace khet
