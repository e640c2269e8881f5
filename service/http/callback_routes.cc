// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/callback_routes.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "service/base/status_macros.h"
#include "service/http/board_pushes.h"
#include "service/http/http_request.h"
#include "service/http/json_codec.h"

namespace khet {
namespace {

constexpr char kPath[] = "/v1/sessions/{id}/callback";

// The owner's call on a khetd that pushes: the session's version now.
absl::StatusOr<int64_t> OwnerOf(const RouteContext& context,
                                const HttpCall& call) {
  KHET_RETURN_IF_ERROR(Query::Read(call.request, {}).status());
  if (context.pushes == nullptr) {
    return absl::FailedPreconditionError(
        "this khetd pushes no events (started with --inworld_callbacks=false); "
        "long-poll GET /v1/sessions/{id}/events instead");
  }
  KHET_ASSIGN_OR_RETURN(Caller caller, CallerOf(call.request));
  return context.core->AuthorizeOwner(call.session_id, caller);
}

// The address the registration came from: the client behind trusted
// proxies when the gateway knows it exactly, else the socket's peer.
IpAddress RegisteringAddress(const HttpCall& call) {
  if (std::optional<IpAddress> client = IpAddress::Parse(call.client.address)) {
    return *client;
  }
  if (std::optional<IpAddress> peer =
          IpAddress::Parse(call.request.remote_address)) {
    return *peer;
  }
  return *IpAddress::Parse("::");  // matches no host that resolves
}

}  // namespace

std::vector<Route> CallbackRoutes(const RouteContext& context) {
  std::vector<Route> routes;
  routes.push_back(
      {"POST", kPath, [context](HttpCall& call) -> absl::Status {
         KHET_ASSIGN_OR_RETURN(const int64_t version, OwnerOf(context, call));
         v1::CallbackRegistration request;
         KHET_RETURN_IF_ERROR(ParseJsonBody(call.request.body, &request));
         KHET_ASSIGN_OR_RETURN(
             BoardPushes::Registered registered,
             context.pushes->Register(call.session_id, request.url(),
                                      request.after_version(),
                                      RegisteringAddress(call)));
         v1::CallbackRegistered answer;
         answer.set_secret(registered.secret);
         answer.set_version(version);
         Reply(call, ToJson(answer));
         return absl::OkStatus();
       }});
  routes.push_back(
      {"GET", kPath, [context](HttpCall& call) -> absl::Status {
         KHET_ASSIGN_OR_RETURN(const int64_t version, OwnerOf(context, call));
         KHET_ASSIGN_OR_RETURN(BoardPushes::Registration found,
                               context.pushes->Find(call.session_id));
         v1::CallbackState answer;
         answer.set_url(found.url);
         answer.set_version(version);
         answer.set_delivered(found.delivered);
         answer.set_failures(found.failures);
         Reply(call, ToJson(answer));
         return absl::OkStatus();
       }});
  routes.push_back({"DELETE", kPath, [context](HttpCall& call) -> absl::Status {
                      KHET_RETURN_IF_ERROR(OwnerOf(context, call).status());
                      KHET_RETURN_IF_ERROR(
                          context.pushes->Unregister(call.session_id));
                      Reply(call, "{}");
                      return absl::OkStatus();
                    }});
  return routes;
}

}  // namespace khet
