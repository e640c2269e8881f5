// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The Prometheus text exposition format, version 0.0.4: for each family a
// "# HELP" line, a "# TYPE" line and its samples, one per line, each line
// ending in '\n'. Histograms write name_bucket{...,le="..."} for every bound
// and +Inf (cumulative), then name_sum and name_count. Help text escapes
// '\\' and newlines; label values also '"'. Numbers take the fewest digits
// that read back to the same double, as plain decimals from 1e-5 to 1e15
// ("0.0001", "12") and with an exponent beyond ("1e+21"); "+Inf", "-Inf",
// "NaN".
#ifndef KHET_SERVICE_METRICS_TEXT_FORMAT_H_
#define KHET_SERVICE_METRICS_TEXT_FORMAT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/metrics/metrics.h"

namespace khet::metrics {

// The Content-Type of a scrape's answer.
inline constexpr absl::string_view kTextContentType =
    "text/plain; version=0.0.4; charset=utf-8";

std::string TextExposition(absl::Span<const FamilySnapshot> families);

// The parts, for tests.
std::string EscapeHelp(absl::string_view text);
std::string EscapeLabelValue(absl::string_view text);
std::string FormatNumber(double value);

}  // namespace khet::metrics

#endif  // KHET_SERVICE_METRICS_TEXT_FORMAT_H_
