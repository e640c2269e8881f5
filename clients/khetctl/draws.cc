// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The end of a game by agreement: resign, offer, accept and claim a draw.
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int ResignCommand(const Invocation& call) {
  v1::ResignRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::Resign, request, SessionText);
}

int OfferDrawCommand(const Invocation& call) {
  v1::OfferDrawRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::OfferDraw, request,
                          SessionText);
}

int AcceptDrawCommand(const Invocation& call) {
  v1::AcceptDrawRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::AcceptDraw, request,
                          SessionText);
}

int ClaimDrawCommand(const Invocation& call) {
  v1::ClaimRepetitionDrawRequest request;
  request.set_session_id(call.session);
  return call.client.Call(&v1::KhetService::Stub::ClaimRepetitionDraw, request,
                          SessionText);
}

}  // namespace khet::ctl
