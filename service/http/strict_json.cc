// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/strict_json.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace khet {
namespace {

using Json = nlohmann::json;

// Reads the parser's events, refusing a repeated key or a nesting too deep.
class StrictReader final : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return Deeper();
  }
  bool key(string_t& key) override {
    if (keys_.back().insert(key).second) return true;
    problem_ = absl::StrCat("the key \"", key.substr(0, 64),
                            "\" appears twice in one object");
    return false;
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override { return Deeper(); }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 2:
    // syntax error ...; last read: '...'": the words between the bracket
    // and what was last read (which may hold bytes that are not UTF-8).
    std::string what = error.what();
    const size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what.erase(0, bracket + 2);
    const size_t last_read = what.find("; last read:");
    if (last_read != std::string::npos) what.erase(last_read);
    problem_ = std::move(what);
    return false;
  }

  const std::string& problem() const { return problem_; }

 private:
  bool Deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    problem_ =
        absl::StrCat("objects and arrays nest deeper than ", kMaxJsonDepth);
    return false;
  }

  std::vector<absl::flat_hash_set<std::string>> keys_;
  int depth_ = 0;
  std::string problem_;
};

}  // namespace

absl::Status CheckStrictJson(absl::string_view text) {
  StrictReader reader;
  if (Json::sax_parse(text.begin(), text.end(), &reader,
                      nlohmann::detail::input_format_t::json,
                      /*strict=*/true, /*ignore_comments=*/false)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the request body is not strict JSON (RFC 8259): ", reader.problem()));
}

}  // namespace khet
