// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/json_printer.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.pb.h"
#include "testdata/json_printer_proto2_test.pb.h"
#include "testdata/json_printer_test.pb.h"

namespace khet {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

std::string Ours(const Message& message) {
  std::string out;
  AppendJson(message, &out);
  return out;
}

std::string Protobufs(const Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  // Fails (printing a part) for a Timestamp out of range: the printer then
  // hands the message to protobuf and must print the same part.
  [[maybe_unused]] const auto status =
      google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

// Fills messages with random values chosen to reach every branch of the
// printer: edge numbers, unknown enum values, strings with characters that
// need escaping, Timestamps of every precision, presence of every kind.
class RandomFiller {
 public:
  explicit RandomFiller(uint64_t seed) : random_(seed) {}

  void Fill(Message* message, int depth) {
    const Descriptor* type = message->GetDescriptor();
    const Reflection* r = message->GetReflection();
    if (type->full_name() == "google.protobuf.Timestamp") {
      FillTimestamp(message);
      return;
    }
    for (int i = 0; i < type->field_count(); ++i) {
      const FieldDescriptor* field = type->field(i);
      if (field->is_map()) continue;
      const bool is_message =
          field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if (is_message && depth >= 3) continue;
      if (field->is_repeated()) {
        const int count = Uniform(0, 3);
        for (int n = 0; n < count; ++n) {
          if (is_message) {
            Fill(r->AddMessage(message, field), depth + 1);
          } else {
            AddScalar(message, field);
          }
        }
        continue;
      }
      if (Uniform(0, 2) == 0) continue;  // left unset
      if (is_message) {
        Fill(r->MutableMessage(message, field), depth + 1);
      } else {
        SetScalar(message, field);
      }
    }
  }

  std::string Text() {
    static const std::vector<std::string> kPieces = {
        "a",
        "Pharaoh",
        " ",
        "\"",
        "\\",
        "/",
        "\n",
        "\t",
        "\b",
        "\f",
        "\r",
        std::string(1, '\0'),
        "\x01",
        "\x1f",
        "\x7f",
        "<",
        ">",
        "&",
        "'",
        "=",
        "\xc3\xa9",          // é
        "\xe4\xb8\xad",      // a CJK ideograph
        "\xf0\x9f\x98\x80",  // an emoji, outside the BMP
        "\xc2\x85",          // U+0085, a C1 control
        "\xc2\xa0",          // U+00A0, no-break space (not escaped)
        "\xc2\xad",          // U+00AD, soft hyphen
        "\xd8\x80",          // U+0600
        "\xe2\x80\x8b",      // U+200B, zero width space
        "\xe2\x80\xa8",      // U+2028, line separator
        "\xe2\x80\xae",      // U+202E, right-to-left override
        "\xe2\x81\xa4",      // U+2064
        "\xef\xbb\xbf",      // U+FEFF
        "\xef\xbf\xbb",      // U+FFFB
        "\xf3\xa0\x80\x81",  // U+E0001, a language tag
        "\xf0\x9d\x85\xb3",  // U+1D173
        "\xf3\xa0\x81\xbf",  // U+E007F
    };
    std::string text;
    const int count = Uniform(0, 6);
    for (int i = 0; i < count; ++i) {
      text += kPieces[Uniform(0, static_cast<int>(kPieces.size()) - 1)];
    }
    return text;
  }

 private:
  int Uniform(int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random_);
  }

  template <typename Int>
  Int Integer() {
    switch (Uniform(0, 4)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<Int>::max();
      case 2:
        return std::numeric_limits<Int>::min();
      case 3:
        return static_cast<Int>(Uniform(-3, 3));
      default:
        return static_cast<Int>(random_());
    }
  }

  double Double() {
    static const double kEdges[] = {0.0,      -0.0,     0.1,    3.0,
                                    0.3,      1e21,     1e-7,   123456789.123,
                                    DBL_MAX,  DBL_MIN,  5e-324, std::nan(""),
                                    HUGE_VAL, -HUGE_VAL};
    if (Uniform(0, 1) == 0) return kEdges[Uniform(0, 13)];
    double value;
    do {
      const uint64_t bits = random_();
      std::memcpy(&value, &bits, sizeof value);
    } while (!std::isfinite(value));
    return value;
  }

  float Float() {
    if (Uniform(0, 1) == 0) return static_cast<float>(Double());
    float value;
    do {
      const uint32_t bits = static_cast<uint32_t>(random_());
      std::memcpy(&value, &bits, sizeof value);
    } while (!std::isfinite(value));
    return value;
  }

  int EnumNumber(const FieldDescriptor* field) {
    const auto* type = field->enum_type();
    if (Uniform(0, 4) == 0) return Uniform(-5, 40);  // perhaps unknown
    return type->value(Uniform(0, type->value_count() - 1))->number();
  }

  std::string Bytes() {
    std::string bytes(Uniform(0, 7), '\0');
    for (char& byte : bytes) byte = static_cast<char>(random_());
    return bytes;
  }

  void SetScalar(Message* message, const FieldDescriptor* field) {
    const Reflection* r = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->SetInt32(message, field, Integer<int32_t>());
      case FieldDescriptor::CPPTYPE_INT64:
        return r->SetInt64(message, field, Integer<int64_t>());
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->SetUInt32(message, field, Integer<uint32_t>());
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->SetUInt64(message, field, Integer<uint64_t>());
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->SetDouble(message, field, Double());
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->SetFloat(message, field, Float());
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->SetBool(message, field, Uniform(0, 1) == 1);
      case FieldDescriptor::CPPTYPE_ENUM:
        return r->SetEnumValue(message, field, EnumNumber(field));
      case FieldDescriptor::CPPTYPE_STRING:
        return r->SetString(
            message, field,
            field->type() == FieldDescriptor::TYPE_BYTES ? Bytes() : Text());
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return;
    }
  }

  void AddScalar(Message* message, const FieldDescriptor* field) {
    const Reflection* r = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->AddInt32(message, field, Integer<int32_t>());
      case FieldDescriptor::CPPTYPE_INT64:
        return r->AddInt64(message, field, Integer<int64_t>());
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->AddUInt32(message, field, Integer<uint32_t>());
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->AddUInt64(message, field, Integer<uint64_t>());
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->AddDouble(message, field, Double());
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->AddFloat(message, field, Float());
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->AddBool(message, field, Uniform(0, 1) == 1);
      case FieldDescriptor::CPPTYPE_ENUM:
        return r->AddEnumValue(message, field, EnumNumber(field));
      case FieldDescriptor::CPPTYPE_STRING:
        return r->AddString(
            message, field,
            field->type() == FieldDescriptor::TYPE_BYTES ? Bytes() : Text());
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return;
    }
  }

  // Seconds over the whole range (now and then just outside it), nanos of
  // every precision (now and then out of range).
  void FillTimestamp(Message* timestamp) {
    const Descriptor* type = timestamp->GetDescriptor();
    const Reflection* r = timestamp->GetReflection();
    int64_t seconds = std::uniform_int_distribution<int64_t>(
        -62135596800, 253402300799)(random_);
    if (Uniform(0, 20) == 0)
      seconds = Uniform(0, 1) ? 253402300800 : -62135596801;
    if (Uniform(0, 3) == 0) seconds = 1795000000 + Uniform(0, 1000);
    int32_t nanos = 0;
    switch (Uniform(0, 4)) {
      case 1:
        nanos = Uniform(1, 999) * 1000000;
        break;
      case 2:
        nanos = Uniform(1, 999999) * 1000;
        break;
      case 3:
        nanos = Uniform(1, 999999999);
        break;
      case 4:
        nanos = Uniform(0, 20) == 0 ? -1 : 0;
        break;
    }
    r->SetInt64(timestamp, type->FindFieldByNumber(1), seconds);
    r->SetInt32(timestamp, type->FindFieldByNumber(2), nanos);
  }

  std::mt19937_64 random_;
};

void CollectTypes(const Descriptor* type, std::vector<const Descriptor*>* all) {
  if (type->options().map_entry()) return;
  all->push_back(type);
  for (int i = 0; i < type->nested_type_count(); ++i) {
    CollectTypes(type->nested_type(i), all);
  }
}

// Every message type of the files that hold these types.
std::vector<const Descriptor*> TypesOfFiles(
    std::vector<const Descriptor*> anchors) {
  std::vector<const Descriptor*> all;
  for (const Descriptor* anchor : anchors) {
    const auto* file = anchor->file();
    for (int i = 0; i < file->message_type_count(); ++i) {
      CollectTypes(file->message_type(i), &all);
    }
  }
  return all;
}

TEST(JsonPrinterTest, EqualsProtobufsPrinterOnRandomMessagesOfEveryType) {
  const std::vector<const Descriptor*> types =
      TypesOfFiles({v1::Session::descriptor(), v1::Board::descriptor(),
                    testing::Everything::descriptor()});
  ASSERT_GT(types.size(), 50u);
  RandomFiller filler(20261123);
  int compared = 0;
  for (const Descriptor* type : types) {
    const Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(
            type);
    ASSERT_NE(prototype, nullptr) << type->full_name();
    // The empty message first: every default printed.
    EXPECT_EQ(Ours(*prototype), Protobufs(*prototype)) << type->full_name();
    for (int round = 0; round < 200; ++round) {
      std::unique_ptr<Message> message(prototype->New());
      filler.Fill(message.get(), 0);
      ASSERT_EQ(Ours(*message), Protobufs(*message))
          << type->full_name() << " round " << round << "\n"
          << message->DebugString();
      ++compared;
    }
  }
  EXPECT_EQ(compared, 200 * static_cast<int>(types.size()));
}

TEST(JsonPrinterTest, PrintsAFullSessionAsProtobufDoes) {
  v1::Session session;
  session.set_id("s-1");
  session.set_version(42);
  session.set_name("Lobby <b>\"one\"</b> \xe2\x80\xae");
  session.mutable_created_at()->set_seconds(1795000000);
  session.mutable_created_at()->set_nanos(120000000);
  session.add_moves("e1:e2");
  auto* piece = session.mutable_board()->add_pieces();
  piece->set_square("a1");
  const std::string json = Ours(session);
  EXPECT_EQ(json, Protobufs(session));
  EXPECT_NE(json.find("\"version\":\"42\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"createdAt\":\"2026-11-18T11:06:40.120Z\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\\u003cb\\u003e\\\"one\\\""), std::string::npos) << json;
  EXPECT_NE(json.find("\\u202e"), std::string::npos) << json;
}

TEST(JsonPrinterTest, DropsMalformedUtf8AsProtobufDoes) {
  const std::vector<std::string> texts = {
      "ok\xc3(x",  // a lead byte followed by ASCII
      "\xff"
      "after",              // a byte that never starts a character
      "\x80",               // a lone continuation byte
      "a\xed\xa0\x80z",     // a surrogate
      "\xf4\x90\x80\x80!",  // beyond U+10FFFF
      "cut \xe2\x82",       // cut short at the end
      "\xc0\xaf",           // an overlong form (kept as protobuf keeps it)
  };
  for (const std::string& text : texts) {
    testing::Scalars scalars;
    // Set through reflection: the generated setter would check UTF-8.
    scalars.GetReflection()->SetString(
        &scalars,
        testing::Scalars::descriptor()->FindFieldByName("string_value"), text);
    EXPECT_EQ(Ours(scalars), Protobufs(scalars)) << absl::CEscape(text);
  }
}

TEST(JsonPrinterTest, HandsMapsAndOtherWellKnownTypesToProtobuf) {
  testing::WithMap with_map;
  (*with_map.mutable_counts())["b"] = 2;
  (*with_map.mutable_counts())["a"] = 1;
  EXPECT_EQ(Ours(with_map), Protobufs(with_map));
  testing::WithDuration with_duration;
  with_duration.mutable_wait()->set_seconds(90);
  EXPECT_EQ(Ours(with_duration), Protobufs(with_duration));
  EXPECT_EQ(Ours(with_duration), "{\"wait\":\"90s\"}");
}

TEST(JsonPrinterTest, HandsProto2MessagesToProtobuf) {
  testing::Legacy legacy;
  EXPECT_EQ(Ours(legacy), Protobufs(legacy));
  legacy.set_flag(true);
  legacy.set_label("<set>");
  EXPECT_EQ(Ours(legacy), Protobufs(legacy));
}

TEST(JsonPrinterTest, AppendsToWhatIsThere) {
  testing::Scalars scalars;
  scalars.set_int32_value(7);
  std::string out = "prefix:";
  AppendJson(scalars, &out);
  EXPECT_EQ(out, "prefix:" + Protobufs(scalars));
}

}  // namespace
}  // namespace khet
