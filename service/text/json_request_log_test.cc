// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/json_request_log.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace khet {
namespace {

// The line as a JSON object (discarded if it is not valid JSON).
nlohmann::json Parsed(const std::string& line) {
  nlohmann::json out =
      nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(out.is_discarded()) << line;
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
  EXPECT_EQ(Parsed(line).size(), 10u);
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
  const nlohmann::json parsed = Parsed(line);
  EXPECT_EQ(parsed.size(), 10u);
  EXPECT_TRUE(parsed.at("status").is_null());
  EXPECT_TRUE(parsed.at("peer").is_null());
  EXPECT_EQ(parsed.at("code").get<std::string>(), "NOT_FOUND");
  // Read back as sent, a stray byte as U+FFFD, cut at 64 bytes.
  EXPECT_EQ(parsed.at("session").get<std::string>(),
            "a\"b\\c\nd\x01\xef\xbf\xbd" + std::string(55, 'x') + "...");
  EXPECT_EQ(parsed.at("message").get<std::string>(), "no session \"a\nb\"");
}

TEST(JsonRequestLogTest, KeepsUtf8AndCutsBetweenCharacters) {
  RequestLogEntry entry;
  entry.protocol = "http";
  entry.code = "OK";
  const std::string pyramids = "\xf0\x93\x89\xbd";  // U+1327D, 4 bytes
  std::string id;
  for (int i = 0; i < 20; ++i) id += pyramids;
  entry.session_id = id;
  const nlohmann::json parsed = Parsed(FormatJsonLog(entry, absl::UnixEpoch()));
  std::string expected;
  for (int i = 0; i < 16; ++i) expected += pyramids;
  EXPECT_EQ(parsed.at("session").get<std::string>(), expected + "...");
}

TEST(JsonRequestLogTest, OtherLinesAsMessages) {
  const nlohmann::json parsed = Parsed(FormatJsonMessage(
      "computer session=s1 outcome=\"played\"", absl::UnixEpoch()));
  EXPECT_EQ(parsed.at("time").get<std::string>(), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(parsed.at("message").get<std::string>(),
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
