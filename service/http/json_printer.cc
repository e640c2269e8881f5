// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/json_printer.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "service/base/mutex.h"

namespace khet {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr absl::string_view kTimestamp = "google.protobuf.Timestamp";
// Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;

// Whether this printer handles `type` and everything it holds.
bool Supported(const Descriptor* type,
               absl::flat_hash_map<const Descriptor*, bool>& seen) {
  if (type->full_name() == kTimestamp) return true;
  if (type->file()->package() == "google.protobuf") return false;
  if (type->file()->syntax() !=
      google::protobuf::FileDescriptor::SYNTAX_PROTO3) {
    return false;
  }
  if (auto it = seen.find(type); it != seen.end()) return it->second;
  seen[type] = true;  // A message that holds itself is decided below.
  bool supported = true;
  for (int i = 0; i < type->field_count() && supported; ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->is_map()) supported = false;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
        !Supported(field->message_type(), seen)) {
      supported = false;
    }
  }
  seen[type] = supported;
  return supported;
}

bool SupportedType(const Descriptor* type) {
  static auto* mutex = new Mutex;
  static auto* cache = new absl::flat_hash_map<const Descriptor*, bool>();
  MutexLock lock(mutex);
  return Supported(type, *cache);
}

// The next code point of `text` from `*at`, as protobuf's JSON escaping
// reads UTF-8: false for a malformed sequence (its bytes up to the first
// wrong one are then skipped, `*at` past them).
bool ReadCodePoint(absl::string_view text, size_t* at, uint32_t* code) {
  const uint8_t lead = static_cast<uint8_t>(text[(*at)++]);
  int more = 0;
  if (lead <= 0x7f) {
    *code = lead;
    return true;
  } else if (lead <= 0xbf) {
    return false;
  } else if (lead <= 0xdf) {
    *code = lead & 0x1f;
    more = 1;
  } else if (lead <= 0xef) {
    *code = lead & 0x0f;
    more = 2;
  } else if (lead <= 0xf7) {
    *code = lead & 0x07;
    more = 3;
  } else {
    return false;
  }
  while (more > 0 && *at < text.size()) {
    const uint8_t next = static_cast<uint8_t>(text[(*at)++]);
    --more;
    *code = (*code << 6) | (next & 0x3f);
    if (next < 0x80 || next > 0xbf) return false;
  }
  if (more > 0) return false;  // cut short by the end
  const bool surrogate = (*code & 0xfffff800) == 0xd800;
  return !surrogate && *code <= 0x10ffff;
}

// Code points written as \u escapes beyond the C0 and C1 controls: those
// that a browser's script or HTML may read as something else.
bool EscapedAsUnicode(uint32_t code) {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return true;
  switch (code) {
    case '<':
    case '>':
    case 0x00ad:
    case 0x06dd:
    case 0x070f:
    case 0x17b4:
    case 0x17b5:
    case 0xfeff:
    case 0xfff9:
    case 0xfffa:
    case 0xfffb:
      return true;
  }
  return (code >= 0x0600 && code <= 0x0603) ||
         (code >= 0x200b && code <= 0x200f) ||
         (code >= 0x2028 && code <= 0x202e) ||
         (code >= 0x2060 && code <= 0x2064) ||
         (code >= 0x206a && code <= 0x206f) || code == 0xe0001 ||
         (code >= 0x1d173 && code <= 0x1d17a) ||
         (code >= 0xe0020 && code <= 0xe007f);
}

void AppendUnicodeEscape(uint32_t unit, std::string* out) {
  absl::StrAppendFormat(out, "\\u%04x", unit);
}

void AppendQuoted(absl::string_view text, std::string* out) {
  out->push_back('"');
  size_t at = 0;
  while (at < text.size()) {
    const size_t start = at;
    uint32_t code = 0;
    if (!ReadCodePoint(text, &at, &code)) continue;  // dropped
    switch (code) {
      case '"':
        out->append("\\\"");
        continue;
      case '\\':
        out->append("\\\\");
        continue;
      case '\b':
        out->append("\\b");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\f':
        out->append("\\f");
        continue;
      case '\r':
        out->append("\\r");
        continue;
    }
    if (!EscapedAsUnicode(code)) {
      out->append(text.data() + start, at - start);
    } else if (code < 0x10000) {
      AppendUnicodeEscape(code, out);
    } else {  // as a surrogate pair
      const uint32_t offset = code - 0x10000;
      AppendUnicodeEscape(0xd800 + (offset >> 10), out);
      AppendUnicodeEscape(0xdc00 + (offset & 0x3ff), out);
    }
  }
  out->push_back('"');
}

// The shortest of %.15g and %.17g that reads back as `value` (protobuf's
// SimpleDtoa); floats likewise with 6 and 9 digits.
void AppendDouble(double value, std::string* out) {
  if (std::isnan(value)) return out->append("\"NaN\""), void();
  if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", DBL_DIG, value);
  if (std::strtod(buffer, nullptr) != value) {
    std::snprintf(buffer, sizeof buffer, "%.*g", DBL_DIG + 2, value);
  }
  out->append(buffer);
}

void AppendFloat(float value, std::string* out) {
  if (std::isnan(value)) return out->append("\"NaN\""), void();
  if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", FLT_DIG, value);
  // As protobuf: a value that reads back out of range (a subnormal) gets
  // the longer form too.
  errno = 0;
  if (std::strtof(buffer, nullptr) != value || errno != 0) {
    std::snprintf(buffer, sizeof buffer, "%.*g", FLT_DIG + 3, value);
  }
  out->append(buffer);
}

// False when the Timestamp is out of its range (nothing appended).
bool AppendTimestamp(const Message& timestamp, std::string* out) {
  const Descriptor* type = timestamp.GetDescriptor();
  const Reflection* reflection = timestamp.GetReflection();
  const int64_t seconds =
      reflection->GetInt64(timestamp, type->FindFieldByNumber(1));
  const int32_t nanos =
      reflection->GetInt32(timestamp, type->FindFieldByNumber(2));
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds ||
      nanos < 0 || nanos > 999999999) {
    return false;
  }
  const absl::CivilSecond time =
      absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  absl::StrAppendFormat(out, "\"%04d-%02d-%02dT%02d:%02d:%02d", time.year(),
                        time.month(), time.day(), time.hour(), time.minute(),
                        time.second());
  if (nanos % 1000000 == 0 && nanos != 0) {
    absl::StrAppendFormat(out, ".%03d", nanos / 1000000);
  } else if (nanos % 1000 == 0 && nanos != 0) {
    absl::StrAppendFormat(out, ".%06d", nanos / 1000);
  } else if (nanos != 0) {
    absl::StrAppendFormat(out, ".%09d", nanos);
  }
  out->append("Z\"");
  return true;
}

class Printer {
 public:
  explicit Printer(std::string* out) : out_(out) {}

  // False when a Timestamp was out of range (`out` then holds a part).
  bool PrintMessage(const Message& message) {
    const Descriptor* type = message.GetDescriptor();
    if (type->full_name() == kTimestamp) {
      return AppendTimestamp(message, out_);
    }
    const Reflection* reflection = message.GetReflection();
    out_->push_back('{');
    bool first = true;
    // Protobuf's order: the fields of the message's default shape in
    // declaration order, then those outside it (scalar oneof members and
    // proto3 `optional` fields, single Timestamps) when set, by number.
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      if (OutsideDefaultShape(field)) continue;
      // Single messages only when set; every other field always.
      if (!field->is_repeated() &&
          field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
          !reflection->HasField(message, field)) {
        continue;
      }
      if (!PrintField(message, field, &first)) return false;
    }
    absl::InlinedVector<const FieldDescriptor*, 8> outside;
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      if (OutsideDefaultShape(field) && reflection->HasField(message, field)) {
        outside.push_back(field);
      }
    }
    std::sort(outside.begin(), outside.end(),
              [](const FieldDescriptor* a, const FieldDescriptor* b) {
                return a->number() < b->number();
              });
    for (const FieldDescriptor* field : outside) {
      if (!PrintField(message, field, &first)) return false;
    }
    out_->push_back('}');
    return true;
  }

 private:
  static bool OutsideDefaultShape(const FieldDescriptor* field) {
    if (field->is_repeated()) return false;
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      return field->containing_oneof() != nullptr;
    }
    return field->message_type()->full_name() == kTimestamp;
  }

  bool PrintField(const Message& message, const FieldDescriptor* field,
                  bool* first) {
    if (!*first) out_->push_back(',');
    *first = false;
    out_->push_back('"');
    out_->append(field->json_name());
    out_->append("\":");
    if (!field->is_repeated()) return PrintValue(message, field, -1);
    out_->push_back('[');
    const int size = message.GetReflection()->FieldSize(message, field);
    for (int index = 0; index < size; ++index) {
      if (index > 0) out_->push_back(',');
      if (!PrintValue(message, field, index)) return false;
    }
    out_->push_back(']');
    return true;
  }

  // The value of `field`, or its element `index` when repeated (index >= 0).
  bool PrintValue(const Message& message, const FieldDescriptor* field,
                  int index) {
    const Reflection* r = message.GetReflection();
    const bool one = index < 0;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        absl::StrAppend(out_, one ? r->GetInt32(message, field)
                                  : r->GetRepeatedInt32(message, field, index));
        return true;
      case FieldDescriptor::CPPTYPE_UINT32:
        absl::StrAppend(out_,
                        one ? r->GetUInt32(message, field)
                            : r->GetRepeatedUInt32(message, field, index));
        return true;
      case FieldDescriptor::CPPTYPE_INT64:
        absl::StrAppend(out_, "\"",
                        one ? r->GetInt64(message, field)
                            : r->GetRepeatedInt64(message, field, index),
                        "\"");
        return true;
      case FieldDescriptor::CPPTYPE_UINT64:
        absl::StrAppend(out_, "\"",
                        one ? r->GetUInt64(message, field)
                            : r->GetRepeatedUInt64(message, field, index),
                        "\"");
        return true;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        AppendDouble(one ? r->GetDouble(message, field)
                         : r->GetRepeatedDouble(message, field, index),
                     out_);
        return true;
      case FieldDescriptor::CPPTYPE_FLOAT:
        AppendFloat(one ? r->GetFloat(message, field)
                        : r->GetRepeatedFloat(message, field, index),
                    out_);
        return true;
      case FieldDescriptor::CPPTYPE_BOOL:
        out_->append((one ? r->GetBool(message, field)
                          : r->GetRepeatedBool(message, field, index))
                         ? "true"
                         : "false");
        return true;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const int number = one ? r->GetEnumValue(message, field)
                               : r->GetRepeatedEnumValue(message, field, index);
        const auto* value = field->enum_type()->FindValueByNumber(number);
        if (value == nullptr) {
          absl::StrAppend(out_, number);
        } else {
          absl::StrAppend(out_, "\"", value->name(), "\"");
        }
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& text =
            one ? r->GetStringReference(message, field, &scratch)
                : r->GetRepeatedStringReference(message, field, index,
                                                &scratch);
        if (field->type() == FieldDescriptor::TYPE_BYTES) {
          absl::StrAppend(out_, "\"", absl::Base64Escape(text), "\"");
        } else {
          AppendQuoted(text, out_);
        }
        return true;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return PrintMessage(one ? r->GetMessage(message, field)
                                : r->GetRepeatedMessage(message, field, index));
    }
    return true;
  }

  std::string* out_;
};

void AppendWithProtobuf(const Message& message, std::string* out) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  // Printing a well-formed message cannot fail; a Timestamp out of range
  // prints what protobuf prints then.
  [[maybe_unused]] const auto status =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  out->append(json);
}

}  // namespace

void AppendJson(const Message& message, std::string* out) {
  if (SupportedType(message.GetDescriptor())) {
    const size_t start = out->size();
    if (Printer(out).PrintMessage(message)) return;
    out->resize(start);
  }
  AppendWithProtobuf(message, out);
}

}  // namespace khet
