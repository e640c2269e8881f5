// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/events/shared_event.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace khet {
namespace {

v1::Event AMove() {
  v1::Event e;
  e.set_version(7);
  e.set_session_id("s1");
  e.set_announcement("Silver rotates the pharaoh");
  e.mutable_move_made()->mutable_move()->set_notation("e1+");
  return e;
}

TEST(SharedEventTest, WireIsTheTypedSerialization) {
  const v1::Event event = AMove();
  SharedEvent shared(event);
  EXPECT_EQ(shared.wire(), event.SerializeAsString());
  v1::Event back;
  ASSERT_TRUE(back.ParseFromString(shared.wire()));
  EXPECT_EQ(back.SerializeAsString(), event.SerializeAsString());
  EXPECT_EQ(&shared.wire(), &shared.wire());  // made once
}

TEST(SharedEventTest, AnEventMadeFromItsWireParsesItOnceForAllReaders) {
  const v1::Event event = AMove();
  const std::string wire = event.SerializeAsString();
  const SharedEvent shared(7, wire);
  EXPECT_EQ(shared.version(), 7);
  EXPECT_EQ(shared.wire(), wire);
  std::vector<std::thread> readers;
  std::vector<const v1::Event*> seen(4);
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&, i] { seen[i] = &shared.event(); });
  }
  for (std::thread& t : readers) t.join();
  for (const v1::Event* e : seen) {
    EXPECT_EQ(e, seen[0]);
    EXPECT_EQ(e->SerializeAsString(), wire);
  }
}

TEST(SharedEventTest, JsonIsMadeOnceBySomeCaller) {
  const SharedEventPtr shared = ShareEvent(AMove());
  std::atomic<int> encodings{0};
  auto encode = [&](const v1::Event& e) {
    ++encodings;
    return "{\"version\":\"" + std::to_string(e.version()) + "\"}";
  };
  std::vector<std::thread> readers;
  std::vector<const std::string*> seen(4);
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&, i] { seen[i] = &shared->Json(encode); });
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(encodings.load(), 1);
  for (const std::string* text : seen) {
    EXPECT_EQ(text, seen[0]);
    EXPECT_EQ(*text, "{\"version\":\"7\"}");
  }
}

}  // namespace
}  // namespace khet
