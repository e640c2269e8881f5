// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The text of game records as the parser walks it: a cursor that knows the
// line of its next character, and the pieces every reading error is built
// from. Internal to the game_record*.cc files.
#ifndef KHET_ENGINE_GAME_RECORD_READER_H_
#define KHET_ENGINE_GAME_RECORD_READER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace khet {
namespace game_record_internal {

// ASCII whitespace, as absl::ascii_isspace.
bool IsSpace(char c);

// `s` without its leading and trailing whitespace.
std::string_view TrimWhitespace(std::string_view s);

// INVALID_ARGUMENT "line <line>: <message>", the form of every error of
// reading a record.
absl::Status LineError(int line, std::string_view message);

// A token of a record (a move, a header name) as messages show it: as it
// is when short and printable, else quoted and cut (QuotedText).
std::string Shown(std::string_view token);

// The text of a file being read, with the line of its next character.
// REQUIRES for Peek and Comment: !AtEnd().
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return text_[pos_]; }
  int line() const { return line_; }

  void SkipWhitespace() {
    while (!AtEnd() && IsSpace(Peek())) Advance();
  }
  // The rest of the current line, the line break consumed.
  std::string_view RestOfLine() {
    const size_t start = pos_;
    while (!AtEnd() && Peek() != '\n') Advance();
    const std::string_view line = text_.substr(start, pos_ - start);
    if (!AtEnd()) Advance();
    return line;
  }
  // Characters up to whitespace or a brace.
  std::string_view Token() {
    const size_t start = pos_;
    while (!AtEnd() && !IsSpace(Peek()) && Peek() != '{' && Peek() != '}') {
      Advance();
    }
    return text_.substr(start, pos_ - start);
  }
  // Characters up to whitespace.
  std::string_view Word() {
    const size_t start = pos_;
    while (!AtEnd() && !IsSpace(Peek())) Advance();
    return text_.substr(start, pos_ - start);
  }
  // At a "{": the text up to the matching unescaped "}", both consumed, or
  // nullopt (and nothing consumed) if the comment is not closed.
  std::optional<std::string_view> Comment() {
    size_t end = pos_ + 1;
    while (end < text_.size() && text_[end] != '}') {
      end += text_[end] == '\\' ? 2 : 1;
    }
    if (end >= text_.size()) return std::nullopt;
    const std::string_view raw = text_.substr(pos_ + 1, end - pos_ - 1);
    while (pos_ <= end) Advance();
    return raw;
  }
  std::string_view Rest() const { return text_.substr(pos_); }

 private:
  void Advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace game_record_internal
}  // namespace khet

#endif  // KHET_ENGINE_GAME_RECORD_READER_H_
