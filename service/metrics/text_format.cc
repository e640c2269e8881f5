// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/metrics/text_format.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace khet::metrics {
namespace {

std::string Escape(absl::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quotes && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

absl::string_view TypeName(Type type) {
  switch (type) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// `{a="x",b="y"}` with `extra` (an already formatted pair) last; nothing
// when there are no labels at all.
std::string LabelSet(const std::vector<std::string>& names,
                     const std::vector<std::string>& values,
                     absl::string_view extra = "") {
  if (names.empty() && extra.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, names[i], "=\"", EscapeLabelValue(values[i]), "\"");
  }
  if (!extra.empty()) {
    if (!names.empty()) out += ',';
    absl::StrAppend(&out, extra);
  }
  out += '}';
  return out;
}

}  // namespace

std::string EscapeHelp(absl::string_view text) { return Escape(text, false); }

std::string EscapeLabelValue(absl::string_view text) {
  return Escape(text, true);
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Plain decimals where they stay short ("0.0001", "12"), exponents
  // beyond; either way the fewest digits that read back exactly.
  const double magnitude = std::fabs(value);
  const bool plain = value == 0 || (magnitude >= 1e-5 && magnitude < 1e15);
  char buffer[64];
  const std::to_chars_result result = std::to_chars(
      buffer, buffer + sizeof(buffer), value,
      plain ? std::chars_format::fixed : std::chars_format::scientific);
  return std::string(buffer, result.ptr);
}

std::string TextExposition(absl::Span<const FamilySnapshot> families) {
  std::string out;
  for (const FamilySnapshot& family : families) {
    absl::StrAppend(&out, "# HELP ", family.name, " ", EscapeHelp(family.help),
                    "\n# TYPE ", family.name, " ", TypeName(family.type), "\n");
    for (const Sample& sample : family.samples) {
      if (family.type != Type::kHistogram) {
        absl::StrAppend(&out, family.name,
                        LabelSet(family.label_names, sample.label_values), " ",
                        FormatNumber(sample.value), "\n");
        continue;
      }
      const Histogram::Snapshot& h = sample.histogram;
      for (size_t i = 0; i < h.cumulative.size(); ++i) {
        const std::string le =
            i < family.bounds.size() ? FormatNumber(family.bounds[i]) : "+Inf";
        absl::StrAppend(&out, family.name, "_bucket",
                        LabelSet(family.label_names, sample.label_values,
                                 absl::StrCat("le=\"", le, "\"")),
                        " ", h.cumulative[i], "\n");
      }
      const std::string labels =
          LabelSet(family.label_names, sample.label_values);
      absl::StrAppend(&out, family.name, "_sum", labels, " ",
                      FormatNumber(h.sum), "\n", family.name, "_count", labels,
                      " ", h.count, "\n");
    }
  }
  return out;
}

}  // namespace khet::metrics
