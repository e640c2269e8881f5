// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Push mode's receiving servers: one PushReceiver per client address, as a
// simulator host serves its objects' URLs, its acceptor on one client
// thread and its connections spread over all of them. Each delivery is
// handed to the client thread of the board its URL names (Board::Pushed);
// one naming no board is only counted.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_ROUTING_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_ROUTING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/load/khet_load/load_board.h"
#include "tools/load/khet_load/load_boards.h"
#include "tools/load/khet_load/load_push_receiver.h"

namespace khet::load::boards_internal {

// Starts a receiving server on each of `options.client_addresses`
// addresses and tells each of `clients` (`options.threads`) their ports.
// `boards` (by index) and `unknown_targets` must outlive the servers' work
// (stop the client threads first); the servers must go before the client
// threads do.
absl::StatusOr<std::vector<std::unique_ptr<PushReceiver>>> StartPushReceivers(
    const BoardsOptions& options,
    const std::vector<std::unique_ptr<ClientThread>>& clients,
    const std::vector<Board*>& boards, std::atomic<int64_t>& unknown_targets);

}  // namespace khet::load::boards_internal

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_ROUTING_H_
