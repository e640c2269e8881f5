// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Taking moves back: ask, accept and decline (player tokens).
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int TakebackCommand(const Invocation& call) {
  v1::RequestTakebackRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::RequestTakeback, request,
                          SessionText);
}

int AcceptTakebackCommand(const Invocation& call) {
  v1::AcceptTakebackRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::AcceptTakeback, request,
                          SessionText);
}

int DeclineTakebackCommand(const Invocation& call) {
  v1::DeclineTakebackRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::DeclineTakeback, request,
                          SessionText);
}

}  // namespace khet::ctl
