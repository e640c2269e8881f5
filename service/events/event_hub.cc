// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/events/event_hub.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace khet {

Subscription::Item Subscription::Next(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  MutexLock lock(&mu_);
  // A CondVar loop rather than Mutex::Await: the condition is evaluated
  // here, in this thread, which keeps ThreadSanitizer's view exact.
  while (!cancelled_ && !behind_ && !closed_ && queue_.empty()) {
    if (changed_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
  }
  Item item;
  if (cancelled_) {
    item.state = State::kCancelled;
  } else if (behind_) {
    item.state = State::kBehind;
  } else if (!queue_.empty()) {
    item.state = State::kEvent;
    item.event = std::move(queue_.front());
    queue_.pop_front();
  } else if (closed_) {
    item.state = State::kClosed;
  }
  return item;
}

void Subscription::Cancel() {
  std::function<void()> ready;
  {
    MutexLock lock(&mu_);
    cancelled_ = true;
    queue_.clear();
    changed_.SignalAll();
    ready = TakeReadyLocked();
  }
  RunReady(std::move(ready));
}

bool Subscription::ReadyLocked() const {
  return cancelled_ || behind_ || closed_ || !queue_.empty();
}

std::function<void()> Subscription::TakeReadyLocked() {
  std::function<void()> ready = std::move(ready_);
  ready_ = nullptr;
  if (ready) ++ready_running_;
  return ready;
}

void Subscription::RunReady(std::function<void()> ready) {
  if (!ready) return;
  ready();
  MutexLock lock(&mu_);
  --ready_running_;
  changed_.SignalAll();
}

void Subscription::NotifyWhenReady(std::function<void()> ready) {
  {
    MutexLock lock(&mu_);
    if (!ReadyLocked()) {
      ready_ = std::move(ready);
      return;
    }
    ready_ = nullptr;
    ++ready_running_;
  }
  RunReady(std::move(ready));
}

void Subscription::ForgetReady() {
  MutexLock lock(&mu_);
  ready_ = nullptr;
  while (ready_running_ > 0) changed_.WaitWithTimeout(&mu_, absl::Seconds(1));
}

bool Subscription::Push(const SharedEventPtr& event,
                        std::function<void()>* ready) {
  MutexLock lock(&mu_);
  if (cancelled_ || behind_) return false;
  if (static_cast<int>(queue_.size()) >= buffer_) {
    behind_ = true;
    queue_.clear();
    changed_.SignalAll();
    *ready = TakeReadyLocked();
    return false;
  }
  queue_.push_back(event);
  changed_.SignalAll();
  *ready = TakeReadyLocked();
  return true;
}

void Subscription::Close() {
  std::function<void()> ready;
  {
    MutexLock lock(&mu_);
    closed_ = true;
    changed_.SignalAll();
    ready = TakeReadyLocked();
  }
  RunReady(std::move(ready));
}

absl::StatusOr<std::shared_ptr<Subscription>> EventHub::Subscribe(
    int max_watchers) {
  auto sub = std::make_shared<Subscription>(buffer_);
  MutexLock lock(&mu_);
  if (closed_) {
    sub->Close();
    return sub;
  }
  if (static_cast<int>(subs_.size()) >= max_watchers) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the session has the maximum of ", max_watchers, " watchers"));
  }
  subs_.push_back(sub);
  return sub;
}

void EventHub::Unsubscribe(const Subscription* sub) {
  MutexLock lock(&mu_);
  subs_.erase(std::remove_if(subs_.begin(), subs_.end(),
                             [sub](const std::shared_ptr<Subscription>& s) {
                               return s.get() == sub;
                             }),
              subs_.end());
}

void EventHub::Publish(std::vector<v1::Event> events) {
  std::vector<SharedEventPtr> shared;
  shared.reserve(events.size());
  for (v1::Event& event : events)
    shared.push_back(ShareEvent(std::move(event)));
  Publish(shared);
}

void EventHub::Publish(const std::vector<SharedEventPtr>& events) {
  // Readers waiting without a thread are told once the hub's lock is free.
  std::vector<std::pair<std::shared_ptr<Subscription>, std::function<void()>>>
      wake;
  {
    MutexLock lock(&mu_);
    if (closed_) return;
    for (const SharedEventPtr& event : events) {
      subs_.erase(std::remove_if(subs_.begin(), subs_.end(),
                                 [&](const std::shared_ptr<Subscription>& s) {
                                   std::function<void()> ready;
                                   const bool kept = s->Push(event, &ready);
                                   if (ready)
                                     wake.emplace_back(s, std::move(ready));
                                   return !kept;
                                 }),
                  subs_.end());
    }
  }
  for (auto& [sub, ready] : wake) sub->RunReady(std::move(ready));
}

void EventHub::Close() {
  std::vector<std::shared_ptr<Subscription>> subs;
  {
    MutexLock lock(&mu_);
    closed_ = true;
    subs.swap(subs_);
  }
  for (const auto& sub : subs) sub->Close();
}

int EventHub::watcher_count() {
  MutexLock lock(&mu_);
  return static_cast<int>(subs_.size());
}

}  // namespace khet
