// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/waiting_requests.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace khet {

WaitingRequests::Place::~Place() {
  MutexLock lock(&owner_->mu_);
  if (stream_ != nullptr) owner_->streams_.erase(stream_);
  --owner_->waiting_;
  owner_->given_back_.SignalAll();
}

void WaitingRequests::Place::Watch(EventStream* stream) {
  MutexLock lock(&owner_->mu_);
  if (stream_ != nullptr) owner_->streams_.erase(stream_);
  stream_ = stream;
  owner_->streams_.insert(stream);
  if (owner_->shutting_down_) stream->Cancel();
}

absl::StatusOr<std::unique_ptr<WaitingRequests::Place>>
WaitingRequests::Enter() {
  MutexLock lock(&mu_);
  if (shutting_down_) {
    return absl::UnavailableError("khetd is shutting down; try again later");
  }
  if (waiting_ >= max_waiting_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many requests waiting for events (", max_waiting_,
        " long polls and event streams at once); try again in a few seconds"));
  }
  ++waiting_;
  return std::unique_ptr<Place>(new Place(this));
}

void WaitingRequests::Shutdown() {
  MutexLock lock(&mu_);
  shutting_down_ = true;
  for (EventStream* stream : streams_) stream->Cancel();
}

bool WaitingRequests::WaitUntilNoneWaits(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  MutexLock lock(&mu_);
  while (waiting_ > 0 && absl::Now() < deadline) {
    given_back_.WaitWithDeadline(&mu_, deadline);
  }
  return waiting_ == 0;
}

bool WaitingRequests::shutting_down() {
  MutexLock lock(&mu_);
  return shutting_down_;
}

int WaitingRequests::waiting() {
  MutexLock lock(&mu_);
  return waiting_;
}

}  // namespace khet
