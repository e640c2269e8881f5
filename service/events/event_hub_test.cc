// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/events/event_hub.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace khet {
namespace {

v1::Event At(int64_t version) {
  v1::Event e;
  e.set_version(version);
  return e;
}

TEST(EventHubTest, DeliversInOrderToEverySubscriber) {
  EventHub hub(8);
  auto a = *hub.Subscribe(10);
  auto b = *hub.Subscribe(10);
  hub.Publish({At(1), At(2)});
  for (auto* sub : {a.get(), b.get()}) {
    for (int v : {1, 2}) {
      Subscription::Item item = sub->Next(absl::Seconds(1));
      ASSERT_EQ(item.state, Subscription::State::kEvent);
      EXPECT_EQ(item.event->version(), v);
    }
    EXPECT_EQ(sub->Next(absl::Milliseconds(1)).state,
              Subscription::State::kTimedOut);
  }
}

TEST(EventHubTest, EverySubscriberGetsTheOnePublishedObject) {
  EventHub hub(8);
  auto a = *hub.Subscribe(10);
  auto b = *hub.Subscribe(10);
  SharedEventPtr published = ShareEvent(At(1));
  hub.Publish(std::vector<SharedEventPtr>{published});
  Subscription::Item from_a = a->Next(absl::Seconds(1));
  Subscription::Item from_b = b->Next(absl::Seconds(1));
  ASSERT_EQ(from_a.state, Subscription::State::kEvent);
  ASSERT_EQ(from_b.state, Subscription::State::kEvent);
  EXPECT_EQ(from_a.event.get(), published.get());
  EXPECT_EQ(from_b.event.get(), published.get());
}

TEST(EventHubTest, OverflowCutsOffOnlyTheSlowSubscriber) {
  EventHub hub(2);
  auto slow = *hub.Subscribe(10);
  auto fast = *hub.Subscribe(10);
  for (int v = 1; v <= 5; ++v) {
    hub.Publish({At(v)});  // never blocks
    EXPECT_EQ(fast->Next(absl::Seconds(1)).event->version(), v);
  }
  EXPECT_EQ(slow->Next(absl::Seconds(1)).state, Subscription::State::kBehind);
  EXPECT_EQ(hub.watcher_count(), 1);  // the slow one was forgotten
}

TEST(EventHubTest, WatcherLimitAndUnsubscribe) {
  EventHub hub(2);
  auto a = *hub.Subscribe(1);
  absl::StatusOr<std::shared_ptr<Subscription>> b = hub.Subscribe(1);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  hub.Unsubscribe(a.get());
  EXPECT_TRUE(hub.Subscribe(1).ok());
}

TEST(EventHubTest, CloseEndsAfterQueuedEvents) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  hub.Publish({At(1)});
  hub.Close();
  EXPECT_EQ(sub->Next(absl::Seconds(1)).state, Subscription::State::kEvent);
  EXPECT_EQ(sub->Next(absl::Seconds(1)).state, Subscription::State::kClosed);
  auto late = *hub.Subscribe(10);
  EXPECT_EQ(late->Next(absl::Seconds(1)).state, Subscription::State::kClosed);
}

TEST(EventHubTest, CancelWakesAWaitingNext) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(20));
    sub->Cancel();
  });
  EXPECT_EQ(sub->Next(absl::Seconds(30)).state,
            Subscription::State::kCancelled);
  canceller.join();
}

TEST(EventHubTest, PublishingFromManyThreads) {
  EventHub hub(100000);
  auto sub = *hub.Subscribe(10);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&hub, t] {
      for (int i = 0; i < 500; ++i) hub.Publish({At(t * 1000 + i)});
    });
  }
  for (auto& th : threads) th.join();
  int count = 0;
  while (sub->Next(absl::ZeroDuration()).state == Subscription::State::kEvent) {
    ++count;
  }
  EXPECT_EQ(count, 2000);
}

TEST(EventHubTest, NotifyWhenReadyRunsOnceOnTheNextEvent) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  int calls = 0;
  sub->NotifyWhenReady([&calls] { ++calls; });
  EXPECT_EQ(calls, 0);  // nothing queued yet
  hub.Publish({At(1), At(2)});
  EXPECT_EQ(calls, 1);  // once, however many events came
  hub.Publish({At(3)});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sub->Next(absl::ZeroDuration()).event->version(), 1);
}

TEST(EventHubTest, NotifyWhenReadyRunsAtOnceWhenSomethingIsQueued) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  hub.Publish({At(1)});
  int calls = 0;
  sub->NotifyWhenReady([&calls] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(EventHubTest, NotifyWhenReadyRunsOnCloseCancelAndCutOff) {
  EventHub hub(1);
  auto closed = *hub.Subscribe(10);
  auto cancelled = *hub.Subscribe(10);
  int close_calls = 0, cancel_calls = 0;
  cancelled->NotifyWhenReady([&] { ++cancel_calls; });
  cancelled->Cancel();
  EXPECT_EQ(cancel_calls, 1);

  auto behind = *hub.Subscribe(10);
  hub.Publish({At(1)});
  ASSERT_EQ(closed->Next(absl::ZeroDuration()).state,
            Subscription::State::kEvent);
  int behind_calls = 0;
  behind->NotifyWhenReady([&] { ++behind_calls; });  // it holds an event
  EXPECT_EQ(behind_calls, 1);
  behind->NotifyWhenReady([&] { ++behind_calls; });
  hub.Publish({At(2)});  // its queue of one overflows
  EXPECT_EQ(behind_calls, 2);
  EXPECT_EQ(behind->Next(absl::ZeroDuration()).state,
            Subscription::State::kBehind);

  closed->NotifyWhenReady([&] { ++close_calls; });
  EXPECT_EQ(close_calls, 1);  // event 2 is queued
  ASSERT_EQ(closed->Next(absl::ZeroDuration()).state,
            Subscription::State::kEvent);
  closed->NotifyWhenReady([&] { ++close_calls; });
  hub.Close();
  EXPECT_EQ(close_calls, 2);
}

TEST(EventHubTest, ForgetReadyDropsTheRequest) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  int calls = 0;
  sub->NotifyWhenReady([&calls] { ++calls; });
  sub->ForgetReady();
  hub.Publish({At(1)});
  EXPECT_EQ(calls, 0);
}

TEST(EventHubTest, ForgetReadyWaitsForARunningRequest) {
  EventHub hub(4);
  auto sub = *hub.Subscribe(10);
  std::atomic<bool> running{false}, finished{false};
  sub->NotifyWhenReady([&] {
    running = true;
    absl::SleepFor(absl::Milliseconds(50));
    finished = true;
  });
  std::thread publisher([&] { hub.Publish({At(1)}); });
  while (!running) absl::SleepFor(absl::Milliseconds(1));
  sub->ForgetReady();
  EXPECT_TRUE(finished);
  publisher.join();
}

}  // namespace
}  // namespace khet
