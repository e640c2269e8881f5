// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's refusals in plain words, and the exit code each one gives: a
// sentence a person can act on, without gRPC's code names and without
// saying the same thing twice.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {
namespace {

// The server's message as a sentence's end: trailing spaces and a final
// full stop dropped (the caller adds one).
std::string Tail(absl::string_view message) {
  absl::string_view text = absl::StripAsciiWhitespace(message);
  absl::ConsumeSuffix(&text, ".");
  return std::string(text);
}

std::string Capitalised(std::string text) {
  if (!text.empty()) text[0] = absl::ascii_toupper(text[0]);
  return text;
}

// gRPC's transport error ("failed to connect to all addresses; last error:
// UNKNOWN: ipv4:127.0.0.1:1: Failed to connect to remote host: Connection
// refused") comes down to its last part, "connection refused".
std::string TransportReason(absl::string_view message) {
  const std::vector<absl::string_view> parts = absl::StrSplit(message, ": ");
  std::string reason = absl::AsciiStrToLower(Tail(parts.back()));
  return reason.empty() ? "no answer" : reason;
}

// "it is Red's turn" -> "Red"; "" for other messages.
std::string SideWhoseTurnItIs(absl::string_view message) {
  for (const char* side : {"Silver", "Red"}) {
    if (absl::StrContains(message, absl::StrCat("it is ", side, "'s turn"))) {
      return side;
    }
  }
  return "";
}

}  // namespace

std::string ErrorText(const grpc::Status& status) {
  const std::string message = Tail(status.error_message());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return absl::StrCat("Cannot reach khetd (", TransportReason(message),
                          "): is it running, and is --server right?");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "khetd did not answer in time (--deadline sets how long to "
             "wait).";
    case grpc::StatusCode::UNAUTHENTICATED: {
      // The server explains the metadata entry; khetctl's users give a flag.
      std::string need(message.substr(0, message.find(" (")));
      need = need.substr(0, need.find(';'));
      if (absl::StartsWith(need, "no authorization")) {
        need = "this needs a token";
      }
      return absl::StrCat(Capitalised(need),
                          ": give it with --token T or KHET_TOKEN (the owner "
                          "token from `create`, a player token from `join`).");
    }
    case grpc::StatusCode::FAILED_PRECONDITION:
      if (const std::string side = SideWhoseTurnItIs(message); !side.empty()) {
        return absl::StrCat("Not your turn: it is ", side, "'s move.");
      }
      return absl::StrCat(Capitalised(message), ".");
    case grpc::StatusCode::INVALID_ARGUMENT:
      return absl::StrCat("Refused: ", message, ".");
    case grpc::StatusCode::NOT_FOUND:
      return absl::StrCat("Not found: ", message, ".");
    case grpc::StatusCode::PERMISSION_DENIED:
      return absl::StrCat("Not allowed: ", message, ".");
    case grpc::StatusCode::ALREADY_EXISTS:
      return absl::StrCat("Already done: ", message, ".");
    case grpc::StatusCode::ABORTED:
      return absl::StrCat("Something changed meanwhile: ", message, ".");
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return absl::StrCat("Over a limit: ", message, ".");
    case grpc::StatusCode::OUT_OF_RANGE:
      return absl::StrCat("Out of range: ", message, ".");
    case grpc::StatusCode::UNIMPLEMENTED:
      // gRPC's servers say so, without a message, both of a call they do not
      // have and of a request they could not read (khetd's callback methods:
      // a text field that is not UTF-8, say).
      if (!message.empty()) return absl::StrCat("Not served: ", message, ".");
      return "khetd did not take the request: it could not read it (is every "
             "text UTF-8?) or does not know this call (is it older than "
             "khetctl?).";
    case grpc::StatusCode::CANCELLED:
      return "The call was cancelled.";
    default:
      return absl::StrCat("khetd failed: ", message, ".");
  }
}

int ExitCode(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return kExitOk;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitUnreachable;
    default:
      return kExitError;
  }
}

int RpcError(const grpc::Status& status) {
  std::cerr << "khetctl: " << ErrorText(status) << std::endl;
  return ExitCode(status);
}

}  // namespace khet::ctl
