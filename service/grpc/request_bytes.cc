// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/request_bytes.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/unknown_field_set.h"
#include "service/text/unicode_text.h"

namespace khet {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

// Deeper than any request nests; a deeper input is left to the parser.
constexpr int kMaxDepth = 32;

bool IsUtf8(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    if (!NextCodePoint(text, &at).has_value()) return false;
  }
  return true;
}

// The full name of the first string field in `bytes` (of a `type`) whose
// value is not UTF-8, looking into nested messages; "" when there is none
// or the bytes are not wire format at all.
std::string FieldNotUtf8(const Descriptor& type, std::string_view bytes,
                         int depth) {
  if (depth > kMaxDepth) return "";
  UnknownFieldSet fields;
  if (!fields.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return "";
  }
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& field = fields.field(i);
    if (field.type() != UnknownField::TYPE_LENGTH_DELIMITED) continue;
    const FieldDescriptor* descriptor = type.FindFieldByNumber(field.number());
    if (descriptor == nullptr) continue;
    const std::string& value = field.length_delimited();
    if (descriptor->type() == FieldDescriptor::TYPE_STRING && !IsUtf8(value)) {
      return descriptor->full_name();
    }
    if (descriptor->type() == FieldDescriptor::TYPE_MESSAGE) {
      std::string inner =
          FieldNotUtf8(*descriptor->message_type(), value, depth + 1);
      if (!inner.empty()) return inner;
    }
  }
  return "";
}

}  // namespace

absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request) {
  request->Clear();
  std::string wire;
  std::vector<grpc::Slice> slices;
  if (bytes.Valid() && !bytes.Dump(&slices).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", request->GetDescriptor()->name(), " could not be read"));
  }
  for (const grpc::Slice& slice : slices) {
    wire.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  // Checked before parsing, which would log each such field as an error.
  const std::string not_utf8 = FieldNotUtf8(*request->GetDescriptor(), wire, 0);
  if (!not_utf8.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the string field ", not_utf8, " holds bytes that are not UTF-8"));
  }
  if (!request->ParseFromString(wire)) {
    request->Clear();
    return absl::InvalidArgumentError(absl::StrCat(
        "the request's bytes are not a ", request->GetDescriptor()->full_name(),
        " (protocol buffers' wire format)"));
  }
  return absl::OkStatus();
}

}  // namespace khet
