// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_request.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "service/base/random_source.h"

namespace khet {
namespace {

absl::Status Unauthenticated(absl::string_view problem) {
  return absl::UnauthenticatedError(absl::StrCat(
      std::string(problem),
      "; send \"Authorization: Bearer <token>\" or \"X-Khet-Token: <token>\" "
      "with the token from CreateSession or JoinSeat"));
}

// The token of one header's value, or the problem with it.
absl::StatusOr<std::string> TokenOf(absl::string_view header,
                                    absl::string_view value) {
  const absl::string_view token =
      absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (token.empty()) {
    return Unauthenticated(absl::StrCat("the ", std::string(header),
                                        " header has an empty token"));
  }
  for (const char c : token) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return Unauthenticated(
          absl::StrCat("the token in the ", std::string(header),
                       " header holds a space or a control character"));
    }
  }
  if (!IsWellFormedToken(token)) {
    return Unauthenticated(absl::StrCat("the token in the ",
                                        std::string(header),
                                        " header is malformed: ", kTokenShape));
  }
  return std::string(token);
}

}  // namespace

absl::StatusOr<Caller> CallerOf(const HttpRequest& request) {
  constexpr absl::string_view kBearer = "bearer ";
  std::string token;
  const size_t authorizations = request.HeaderCount("Authorization");
  const size_t khet_tokens = request.HeaderCount("X-Khet-Token");
  if (authorizations > 1 || khet_tokens > 1) {
    return Unauthenticated("more than one token header");
  }
  if (authorizations == 1) {
    const std::string value = request.Header("Authorization");
    if (value.size() < kBearer.size() ||
        !absl::EqualsIgnoreCase(value.substr(0, kBearer.size()), kBearer)) {
      return Unauthenticated(
          "the Authorization header is not of the form \"Bearer <token>\"");
    }
    absl::StatusOr<std::string> bearer = TokenOf(
        "Authorization", absl::string_view(value).substr(kBearer.size()));
    if (!bearer.ok()) return bearer.status();
    token = *std::move(bearer);
  }
  if (khet_tokens == 1) {
    absl::StatusOr<std::string> header =
        TokenOf("X-Khet-Token", request.Header("X-Khet-Token"));
    if (!header.ok()) return header.status();
    if (!token.empty() && token != *header) {
      return Unauthenticated(
          "the Authorization and X-Khet-Token headers hold different tokens");
    }
    token = *std::move(header);
  }
  if (token.empty()) return Unauthenticated("no token");
  return Caller{std::move(token)};
}

absl::StatusOr<int64_t> ParseNumber(absl::string_view what,
                                    absl::string_view text, int64_t min,
                                    int64_t max) {
  // Digits, after a '-' at most: SimpleAtoi alone would also take a '+'
  // and spaces around the number ("pageSize=+5" reads " 5").
  absl::string_view digits = text;
  absl::ConsumePrefix(&digits, "-");
  const bool only_digits =
      !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c));
      });
  int64_t value = 0;
  if (!only_digits ||
      !absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &value) ||
      value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(what), " must be a whole number from ", min, " to ", max,
        " in digits, not \"", std::string(text.substr(0, 64)), "\""));
  }
  return value;
}

namespace {

// "%41+b" as "A b"; nullopt for a malformed escape.
std::optional<std::string> DecodeQueryText(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] != '%') {
      out += text[i];
    } else {
      int value = 0;
      if (i + 2 >= text.size()) return std::nullopt;
      for (size_t k = i + 1; k <= i + 2; ++k) {
        const char c = text[k];
        if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
          return std::nullopt;
        }
        value = value * 16 + (absl::ascii_isdigit(static_cast<unsigned char>(c))
                                  ? c - '0'
                                  : absl::ascii_tolower(c) - 'a' + 10);
      }
      out += static_cast<char>(value);
      i += 2;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Query> Query::Read(
    const HttpRequest& request,
    std::initializer_list<absl::string_view> allowed) {
  // From the URL alone, never from a form body.
  const size_t question = request.target.find('?');
  const absl::string_view text =
      question == std::string::npos
          ? absl::string_view()
          : absl::string_view(request.target).substr(question + 1);
  Query query;
  for (const absl::string_view part :
       absl::StrSplit(text, '&', absl::SkipEmpty())) {
    const size_t equals = part.find('=');
    const std::optional<std::string> name =
        DecodeQueryText(part.substr(0, equals));
    const std::optional<std::string> value = DecodeQueryText(
        equals == absl::string_view::npos ? absl::string_view()
                                          : part.substr(equals + 1));
    if (!name.has_value() || !value.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter \"", part, "\" has a malformed %-escape"));
    }
    bool known = false;
    for (const absl::string_view a : allowed) known = known || a == *name;
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown query parameter \"", *name, "\"",
          allowed.size() == 0 ? std::string("; this route takes none")
                              : absl::StrCat("; this route takes ",
                                             absl::StrJoin(allowed, ", "))));
    }
    if (!query.params_.emplace(*name, *value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter \"", *name, "\" is given twice"));
    }
  }
  return query;
}

std::string Query::Text(absl::string_view name,
                        absl::string_view otherwise) const {
  const auto it = params_.find(name);
  return it == params_.end() ? std::string(otherwise) : it->second;
}

absl::StatusOr<int64_t> Query::Number(absl::string_view name, int64_t otherwise,
                                      int64_t min, int64_t max) const {
  const auto it = params_.find(name);
  if (it == params_.end()) return otherwise;
  return ParseNumber(absl::StrCat("query parameter ", std::string(name)),
                     it->second, min, max);
}

absl::StatusOr<bool> Query::Flag(absl::string_view name, bool otherwise) const {
  const auto it = params_.find(name);
  if (it == params_.end()) return otherwise;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter ", std::string(name),
                   " must be true or false, not \"", it->second, "\""));
}

absl::StatusOr<bool> Query::Compact() const {
  const std::string view = Text("view", "full");
  if (view == "compact") return true;
  if (view == "full") return false;
  return absl::InvalidArgumentError(absl::StrCat(
      "query parameter view must be compact or full, not \"", view, "\""));
}

}  // namespace khet
