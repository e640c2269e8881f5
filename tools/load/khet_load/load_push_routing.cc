// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_push_routing.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"
#include "tools/load/khet_load/load_board.h"
#include "tools/load/khet_load/load_push_receiver.h"

namespace khet::load::boards_internal {
namespace {

// The board named by a pushed delivery's target, "/lslhttp/<object
// key>/?sig=...", the key's last 12 hex digits its index; null if none.
Board* PushedBoard(absl::string_view target,
                   const std::vector<Board*>& boards) {
  if (!absl::ConsumePrefix(&target, "/lslhttp/") || target.size() < 37 ||
      target[36] != '/') {
    return nullptr;
  }
  const absl::string_view key = target.substr(0, 36);
  uint64_t index = 0;
  for (char c : key.substr(24)) {
    if (!absl::ascii_isxdigit(c)) return nullptr;
    index = index * 16 +
            static_cast<uint64_t>(c <= '9' ? c - '0'
                                           : absl::ascii_tolower(c) - 'a' + 10);
  }
  if (index >= boards.size() || boards[index]->object_key() != key) {
    return nullptr;
  }
  return boards[index];
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<PushReceiver>>> StartPushReceivers(
    const BoardsOptions& options,
    const std::vector<std::unique_ptr<ClientThread>>& clients,
    const std::vector<Board*>& boards, std::atomic<int64_t>& unknown_targets) {
  std::vector<std::unique_ptr<PushReceiver>> receivers;
  std::vector<int> ports;
  for (int a = 0; a < options.client_addresses; ++a) {
    std::vector<net::io_context*> ios;
    for (int t = 0; t < options.threads; ++t) {
      ios.push_back(&clients[(a + t) % options.threads]->io());
    }
    absl::StatusOr<std::unique_ptr<PushReceiver>> receiver =
        PushReceiver::Listen(
            ClientThread::Source(a), std::move(ios),
            [&boards, &unknown_targets](absl::string_view target,
                                        std::string body, int64_t arrival) {
              Board* board = PushedBoard(target, boards);
              if (board == nullptr) {
                ++unknown_targets;
                return;
              }
              net::post(
                  board->client().io(),
                  [board, target = std::string(target), body = std::move(body),
                   arrival] { board->Pushed(target, body, arrival); });
            });
    if (!receiver.ok()) return receiver.status();
    ports.push_back((*receiver)->port());
    receivers.push_back(std::move(*receiver));
  }
  for (auto& client : clients) client->SetPushPorts(ports);
  return receivers;
}

}  // namespace khet::load::boards_internal
