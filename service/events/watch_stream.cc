// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/events/watch_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace khet {

WatchStream::WatchStream(SessionStore* store, std::string session_id,
                         int64_t after_version, int64_t history_until,
                         std::shared_ptr<EventHub> hub,
                         std::shared_ptr<Subscription> sub,
                         WatcherLimit::Place place)
    : place_(std::move(place)),
      store_(store),
      session_id_(std::move(session_id)),
      history_until_(history_until),
      hub_(std::move(hub)),
      sub_(std::move(sub)),
      last_version_(after_version) {}

WatchStream::~WatchStream() {
  sub_->ForgetReady();
  hub_->Unsubscribe(sub_.get());
}

void WatchStream::NotifyWhenReady(std::function<void()> ready) {
  // Stored history is there to be read (or found missing) at once.
  const bool history_left =
      !history_done_ && (!history_.empty() || last_version_ < history_until_);
  if (cancelled_ || history_left) {
    ready();
    return;
  }
  sub_->NotifyWhenReady(std::move(ready));
}

void WatchStream::Cancel() {
  cancelled_ = true;
  sub_->Cancel();
}

absl::StatusOr<SharedEventPtr> WatchStream::NextShared(absl::Duration timeout) {
  if (cancelled_) return absl::CancelledError("the watch was cancelled");
  // Stored history first.
  while (!history_done_) {
    if (history_.empty()) {
      if (last_version_ >= history_until_) {
        history_done_ = true;
        break;
      }
      absl::StatusOr<std::vector<EventRecord>> page =
          store_->EventsAfter(session_id_, last_version_, kHistoryPage);
      if (!page.ok()) return page.status();
      for (const EventRecord& record : *page) {
        if (record.version > history_until_) break;
        v1::Event event;
        if (!event.ParseFromString(record.event)) {
          return absl::InternalError(
              absl::StrCat("session \"", session_id_, "\": stored event ",
                           record.version, " is corrupt"));
        }
        history_.push_back(std::move(event));
      }
      // The session was deleted meanwhile, or the store keeps less history:
      // go on with the live events.
      if (history_.empty()) {
        history_done_ = true;
        break;
      }
    }
    v1::Event event = std::move(history_.front());
    history_.pop_front();
    if (event.version() <= last_version_) continue;
    last_version_ = event.version();
    return ShareEvent(std::move(event));
  }
  // Then live events, skipping any already returned from the history.
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    Subscription::Item item = sub_->Next(deadline - absl::Now());
    switch (item.state) {
      case Subscription::State::kEvent:
        if (item.event->version() <= last_version_) continue;
        last_version_ = item.event->version();
        return std::move(item.event);
      case Subscription::State::kTimedOut:
        return nullptr;
      case Subscription::State::kBehind:
        return absl::ResourceExhaustedError(absl::StrCat(
            "watcher fell behind; resume with after_version=", last_version_));
      case Subscription::State::kClosed:
        return absl::NotFoundError(
            absl::StrCat("session \"", session_id_, "\" was deleted"));
      case Subscription::State::kCancelled:
        return absl::CancelledError("the watch was cancelled");
    }
  }
}

}  // namespace khet
