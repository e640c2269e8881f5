// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/json_codec.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "service/base/status_macros.h"
#include "service/http/json_printer.h"
#include "service/http/strict_json.h"

namespace khet {

absl::Status ParseJsonBody(absl::string_view body,
                           google::protobuf::Message* message) {
  message->Clear();
  const absl::string_view text =
      absl::StripAsciiWhitespace(absl::string_view(body.data(), body.size()));
  if (text.empty()) return absl::OkStatus();
  KHET_RETURN_IF_ERROR(CheckStrictJson(text));
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), message,
      options);
  if (status.ok()) return absl::OkStatus();
  message->Clear();
  return absl::InvalidArgumentError(absl::StrCat(
      "the request body is not a valid ", message->GetDescriptor()->name(),
      " in JSON: ",
      std::string(status.message().data(), status.message().size())));
}

std::string ToJson(const google::protobuf::Message& message) {
  std::string out;
  AppendJson(message, &out);
  return out;
}

}  // namespace khet
