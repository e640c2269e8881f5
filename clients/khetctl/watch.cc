// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// watch: a session's events, live.
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>

#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

namespace {

int RunWatch(Client& client, const std::string& session,
             int64_t after_version) {
  v1::WatchRequest request;
  request.set_session_id(session);
  request.set_after_version(after_version);
  auto context = client.Context(/*streaming=*/true);
  auto reader = client.stub().Watch(context.get(), request);
  v1::Event event;
  bool deleted = false;
  while (reader->Read(&event)) {
    std::cout << (client.json() ? ToJson(event, false) : EventLine(event))
              << std::endl;
    deleted = deleted || event.kind_case() == v1::Event::kSessionDeleted;
  }
  const grpc::Status status = reader->Finish();
  // The stream of a deleted session ends NOT_FOUND after its last event.
  if (status.ok() ||
      (deleted && status.error_code() == grpc::StatusCode::NOT_FOUND)) {
    return kExitOk;
  }
  return RpcError(status);
}

}  // namespace

int WatchCommand(const Invocation& call) {
  absl::StatusOr<int64_t> after = call.flags.GetInt(
      "after_version", 0, 0, std::numeric_limits<int64_t>::max());
  if (!after.ok()) return UsageError(after.status().message());
  return RunWatch(call.client, call.session, *after);
}

}  // namespace khet::ctl
