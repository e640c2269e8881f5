#include "service/json_request_log.h"

#include <string>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

google::protobuf::Struct Parsed(const std::string& line) {
  google::protobuf::Struct out;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(line, &out).ok())
      << line;
  return out;
}

TEST(JsonRequestLogTest, HttpLineHasEveryKey) {
  RequestLogEntry entry;
  entry.protocol = "http";
  entry.method = "POST";
  entry.route = "/v1/sessions/{id}:move";
  entry.http_status = 200;
  entry.code = "OK";
  entry.ms = 0.8421;
  entry.peer = "127.0.0.1";
  entry.session_id = "s0001";
  const std::string line =
      FormatJsonLog(entry, absl::FromUnixMillis(1795000000123));
  EXPECT_EQ(line,
            "{\"time\":\"2026-11-18T11:06:40.123Z\",\"protocol\":\"http\","
            "\"method\":\"POST\",\"route\":\"/v1/sessions/{id}:move\","
            "\"status\":200,\"code\":\"OK\",\"ms\":0.842,"
            "\"peer\":\"127.0.0.1\",\"session\":\"s0001\",\"message\":null}");
  EXPECT_EQ(Parsed(line).fields().size(), 10);
}

TEST(JsonRequestLogTest, GrpcErrorWithHostileText) {
  RequestLogEntry entry;
  entry.protocol = "grpc";
  entry.method = "GetSession";
  entry.route = "/khet.v1.KhetService/GetSession";
  entry.code = "NOT_FOUND";
  const std::string id = "a\"b\\c\nd\x01\xff" + std::string(100, 'x');
  entry.session_id = id;
  entry.message = "no session \"a\nb\"";
  const std::string line = FormatJsonLog(entry, absl::UnixEpoch());
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const google::protobuf::Struct parsed = Parsed(line);
  EXPECT_EQ(parsed.fields().size(), 10);
  EXPECT_TRUE(parsed.fields().at("status").has_null_value());
  EXPECT_TRUE(parsed.fields().at("peer").has_null_value());
  EXPECT_EQ(parsed.fields().at("code").string_value(), "NOT_FOUND");
  // Read back as sent, a stray byte as U+FFFD, cut at 64 bytes.
  EXPECT_EQ(parsed.fields().at("session").string_value(),
            "a\"b\\c\nd\x01\xef\xbf\xbd" + std::string(55, 'x') + "...");
  EXPECT_EQ(parsed.fields().at("message").string_value(),
            "no session \"a\nb\"");
}

TEST(JsonRequestLogTest, KeepsUtf8AndCutsBetweenCharacters) {
  RequestLogEntry entry;
  entry.protocol = "http";
  entry.code = "OK";
  const std::string pyramids = "\xf0\x93\x89\xbd";  // U+1327D, 4 bytes
  std::string id;
  for (int i = 0; i < 20; ++i) id += pyramids;
  entry.session_id = id;
  const google::protobuf::Struct parsed =
      Parsed(FormatJsonLog(entry, absl::UnixEpoch()));
  std::string expected;
  for (int i = 0; i < 16; ++i) expected += pyramids;
  EXPECT_EQ(parsed.fields().at("session").string_value(), expected + "...");
}

TEST(JsonRequestLogTest, OtherLinesAsMessages) {
  const google::protobuf::Struct parsed = Parsed(FormatJsonMessage(
      "computer session=s1 outcome=\"played\"", absl::UnixEpoch()));
  EXPECT_EQ(parsed.fields().at("time").string_value(),
            "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(parsed.fields().at("message").string_value(),
            "computer session=s1 outcome=\"played\"");
}

TEST(JsonRequestLogTest, ParsesFormats) {
  LogFormat format = LogFormat::kText;
  EXPECT_TRUE(ParseLogFormat("json", &format));
  EXPECT_EQ(format, LogFormat::kJson);
  EXPECT_TRUE(ParseLogFormat("text", &format));
  EXPECT_EQ(format, LogFormat::kText);
  EXPECT_FALSE(ParseLogFormat("JSON", &format));
}

}  // namespace
}  // namespace khet
