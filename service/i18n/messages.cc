// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/i18n/messages.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/names.h"
#include "service/i18n/catalog.h"

namespace khet {
namespace {

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

// The length of the placeholder name starting at text[at] (just after a
// '{') if a well-formed placeholder follows, else 0.
size_t NameLength(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && IsNameChar(text[end])) ++end;
  if (end == at || end == text.size() || text[end] != '}') return 0;
  return end - at;
}

using Table =
    std::array<std::array<std::string_view, kMessageCount>, kLanguages.size()>;

// Every language's templates by message; one missing from a catalogue
// (which i18n_test rules out) reads as the English one.
const Table& Templates() {
  static const Table* const table = [] {
    auto* t = new Table();
    for (Language language : kLanguages) {
      for (const i18n_internal::CatalogEntry& e :
           i18n_internal::Catalog(language)) {
        (*t)[static_cast<int>(language)][static_cast<int>(e.message)] = e.text;
      }
    }
    for (auto& row : *t) {
      for (int m = 0; m < kMessageCount; ++m) {
        if (row[m].empty()) row[m] = (*t)[0][m];
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace

namespace i18n_internal {

absl::Span<const CatalogEntry> Catalog(Language language) {
  switch (language) {
    case Language::kEnglish:
      return EnglishCatalog();
    case Language::kGerman:
      return GermanCatalog();
    case Language::kFrench:
      return FrenchCatalog();
    case Language::kDutch:
      return DutchCatalog();
  }
  return EnglishCatalog();
}

}  // namespace i18n_internal

std::string_view LanguageCode(Language language) {
  switch (language) {
    case Language::kEnglish:
      return "en";
    case Language::kGerman:
      return "de";
    case Language::kFrench:
      return "fr";
    case Language::kDutch:
      return "nl";
  }
  return "en";
}

absl::StatusOr<Language> ParseLanguage(std::string_view code) {
  for (Language language : kLanguages) {
    const std::string_view known = LanguageCode(language);
    if (absl::EqualsIgnoreCase(absl::string_view(code.data(), code.size()),
                               absl::string_view(known.data(), known.size()))) {
      return language;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown language ", QuotedText(code), " (one of en, de, fr, nl)"));
}

std::string_view MessageTemplate(Language language, Message message) {
  return Templates()[static_cast<int>(language)][static_cast<int>(message)];
}

std::string Format(Language language, Message message,
                   absl::Span<const MessageArg> args) {
  const std::string_view text = MessageTemplate(language, message);
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('{', i);
    if (open == std::string_view::npos) break;
    out.append(text.substr(i, open - i));
    const size_t length = NameLength(text, open + 1);
    const std::string_view name = text.substr(open + 1, length);
    const MessageArg* arg = nullptr;
    for (const MessageArg& a : args) {
      if (length > 0 && a.name == name) arg = &a;
    }
    if (arg == nullptr) {
      out.push_back('{');
      i = open + 1;
      continue;
    }
    out.append(arg->value);
    i = open + length + 2;
  }
  out.append(text.substr(std::min(i, text.size())));
  return out;
}

absl::StatusOr<std::vector<std::string>> Placeholders(std::string_view text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') {
      return absl::InvalidArgumentError(
          absl::StrCat("stray '}' at ", i, " in ", QuotedText(text)));
    }
    if (text[i] != '{') continue;
    const size_t length = NameLength(text, i + 1);
    if (length == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed placeholder at ", i, " in ", QuotedText(text)));
    }
    names.emplace_back(text.substr(i + 1, length));
    i += length + 1;
  }
  return names;
}

}  // namespace khet
