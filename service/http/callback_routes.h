// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The routes of pushed events (docs/http-api.md, "Pushed events"): a
// board's owner registers, reads and removes the URL khetd pushes the
// session's events to (board_pushes.h). HTTP only.
#ifndef KHET_SERVICE_HTTP_CALLBACK_ROUTES_H_
#define KHET_SERVICE_HTTP_CALLBACK_ROUTES_H_

#include <vector>

#include "service/http/http_routes.h"

namespace khet {

// POST, GET and DELETE /v1/sessions/{id}/callback. Without pushes
// (context.pushes null) each answers FAILED_PRECONDITION saying so.
std::vector<Route> CallbackRoutes(const RouteContext& context);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_CALLBACK_ROUTES_H_
