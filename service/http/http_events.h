// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The two ways to wait for a session's events over HTTP (docs/http-api.md):
// long polling and server-sent events. Both hold a place of
// WaitingRequests while they wait, and end at once on its Shutdown.
#ifndef KHET_SERVICE_HTTP_HTTP_EVENTS_H_
#define KHET_SERVICE_HTTP_HTTP_EVENTS_H_

#include "service/http/http_routes.h"

namespace khet {

// GET /v1/sessions/{id}/events?afterVersion=N&waitSeconds=S&view=compact
inline constexpr int kMaxPollEvents = 32;
inline constexpr int kMaxWaitSeconds = 25;
inline constexpr int kDefaultWaitSeconds = 20;
RouteHandler LongPollHandler(const RouteContext& context);

// GET /v1/sessions/{id}/events:stream?afterVersion=N (or Last-Event-ID)
RouteHandler EventStreamHandler(const RouteContext& context);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_EVENTS_H_
