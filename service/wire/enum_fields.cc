// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/wire/enum_fields.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace khet {
namespace {

using ::google::protobuf::EnumDescriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;

absl::Status UnknownValue(const std::string& path, int value,
                          const EnumDescriptor& type) {
  std::string known;
  for (int i = 0; i < type.value_count(); ++i) {
    absl::StrAppend(&known, i == 0 ? "" : ", ", type.value(i)->name());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      path, " is ", value, ", not a ", type.name(), " (", known, ")"));
}

// The first unknown enum value in `message`, its path relative to it. Paths
// are built only for an error: most requests pass.
absl::Status Check(const Message& message) {
  const Reflection& reflection = *message.GetReflection();
  const auto& descriptor = *message.GetDescriptor();
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const FieldDescriptor& field = *descriptor.field(i);
    if (field.type() == FieldDescriptor::TYPE_ENUM) {
      const EnumDescriptor& type = *field.enum_type();
      if (field.is_repeated()) {
        for (int j = 0; j < reflection.FieldSize(message, &field); ++j) {
          const int value = reflection.GetRepeatedEnumValue(message, &field, j);
          if (type.FindValueByNumber(value) == nullptr) {
            return UnknownValue(absl::StrCat(field.name(), "[", j, "]"), value,
                                type);
          }
        }
      } else {
        const int value = reflection.GetEnumValue(message, &field);
        if (type.FindValueByNumber(value) == nullptr) {
          return UnknownValue(field.name(), value, type);
        }
      }
    } else if (field.type() == FieldDescriptor::TYPE_MESSAGE) {
      if (field.is_repeated()) {
        for (int j = 0; j < reflection.FieldSize(message, &field); ++j) {
          if (absl::Status s =
                  Check(reflection.GetRepeatedMessage(message, &field, j));
              !s.ok()) {
            return absl::InvalidArgumentError(
                absl::StrCat(field.name(), "[", j, "].", s.message()));
          }
        }
      } else if (reflection.HasField(message, &field)) {
        if (absl::Status s = Check(reflection.GetMessage(message, &field));
            !s.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat(field.name(), ".", s.message()));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckEnumFields(const google::protobuf::Message& request) {
  return Check(request);
}

}  // namespace khet
