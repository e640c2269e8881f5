// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/color_schemes.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

v1::Rgb MakeRgb(uint32_t r, uint32_t g, uint32_t b) {
  v1::Rgb rgb;
  rgb.set_r(r);
  rgb.set_g(g);
  rgb.set_b(b);
  rgb.set_hex(absl::StrFormat("#%02x%02x%02x", r, g, b));
  return rgb;
}

v1::ColorScheme MakeScheme(const char* id, const char* name, v1::Rgb silver,
                           v1::Rgb red, v1::Rgb beam) {
  v1::ColorScheme scheme;
  scheme.set_id(id);
  scheme.set_name(name);
  *scheme.mutable_silver() = std::move(silver);
  *scheme.mutable_red() = std::move(red);
  *scheme.mutable_beam() = std::move(beam);
  return scheme;
}

}  // namespace

const std::vector<v1::ColorScheme>& AllColorSchemes() {
  // The beam is a bright laser red, except on Nile and Royal, whose pieces
  // would hide a red or purple beam less well than a green one.
  static const std::vector<v1::ColorScheme>* const schemes =
      new std::vector<v1::ColorScheme>{
          MakeScheme("classic", "Classic (silver and ruby)",
                     MakeRgb(192, 192, 192), MakeRgb(155, 17, 30),
                     MakeRgb(255, 32, 32)),
          MakeScheme("deflexion", "Deflexion (silver and gold)",
                     MakeRgb(192, 192, 192), MakeRgb(212, 175, 55),
                     MakeRgb(255, 32, 32)),
          MakeScheme("nile", "Nile (orange and blue)", MakeRgb(255, 140, 0),
                     MakeRgb(30, 90, 168), MakeRgb(57, 255, 20)),
          MakeScheme("royal", "Royal (green and purple)", MakeRgb(46, 139, 87),
                     MakeRgb(106, 13, 173), MakeRgb(255, 32, 32)),
      };
  return *schemes;
}

absl::StatusOr<v1::ColorScheme> FindColorScheme(std::string_view id) {
  std::string known;
  for (const v1::ColorScheme& scheme : AllColorSchemes()) {
    if (scheme.id() == id) return scheme;
    absl::StrAppend(&known, known.empty() ? "" : ", ", scheme.id());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown colour scheme ", QuoteInput(id), "; known: ", known));
}

}  // namespace khet
