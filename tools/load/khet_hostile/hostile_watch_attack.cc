// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_hostile/hostile_watch_attack.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "khet/v1/khet_service.grpc.pb.h"

namespace khet::hostile {

WatchAttack::WatchAttack(const std::string& address, int channels) {
  for (int i = 0; i < channels; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("khet.hostile.channel", i);  // a connection of its own
    stubs_.push_back(v1::KhetService::NewStub(grpc::CreateCustomChannel(
        address, grpc::InsecureChannelCredentials(), args)));
  }
}

void WatchAttack::Start(int count, const std::vector<std::string>& sessions) {
  for (int i = 0; i < count; ++i) {
    auto call = std::make_unique<Call>();
    v1::WatchRequest request;
    request.set_session_id(sessions[i % sessions.size()]);
    call->reader = stubs_[i % stubs_.size()]->PrepareAsyncWatch(
        &call->context, request, &queue_);
    calls_.push_back(std::move(call));
  }
  for (auto& call : calls_) call->reader->StartCall(call.get());
  thread_ = std::thread([this] {
    void* tag;
    bool ok;
    while (queue_.Next(&tag, &ok)) Handle(static_cast<Call*>(tag), ok);
  });
}

void WatchAttack::Stop() {
  stopping_ = true;
  for (auto& call : calls_) call->context.TryCancel();
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto& call : calls_) {
      if (call->state == State::kOpen) Finish(call.get());
    }
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (done_ < static_cast<int64_t>(calls_.size()) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  queue_.Shutdown();
  thread_.join();
}

std::map<std::string, int64_t> WatchAttack::Refused() const {
  std::unique_lock<std::mutex> lock(mu_);
  return refused_;
}

void WatchAttack::Finish(Call* call) {
  call->state = State::kFinishing;
  call->reader->Finish(&call->status, call);
}

void WatchAttack::Handle(Call* call, bool ok) {
  std::unique_lock<std::mutex> lock(mu_);
  switch (call->state) {
    case State::kStarting:
      if (!ok) return Finish(call);
      call->state = State::kReading;
      call->reader->Read(&call->event, call);
      return;
    case State::kReading:
      if (!ok) return Finish(call);
      call->state = State::kOpen;
      call->opened = true;
      peak_open_ = std::max<int64_t>(peak_open_, ++open_);
      if (stopping_) Finish(call);
      return;
    case State::kFinishing:
      call->state = State::kDone;
      ++done_;
      if (call->opened) {
        --open_;
      } else if (!stopping_) {
        ++refused_[StatusName(call->status.error_code())];
      }
      return;
    case State::kOpen:
    case State::kDone:
      return;
  }
}

std::string WatchAttack::StatusName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    default:
      return absl::StrCat("code ", code);
  }
}

}  // namespace khet::hostile
