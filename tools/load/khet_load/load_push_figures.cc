// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_push_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tools/load/common/raw_http.h"

namespace khet::load::boards_internal {

namespace {

// Adds one khetd's push series from /metrics on 127.0.0.1:`http_port` to
// `m`; false if the page could not be read.
bool AddPushMetrics(int http_port, PushMetrics& m) {
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port);
  if (!connection.ok() || !(*connection)->Send(GetRequest("/metrics"))) {
    return false;
  }
  absl::StatusOr<RawResponse> page = (*connection)->Read(absl::Seconds(10));
  if (!page.ok() || page->status != 200) return false;
  for (absl::string_view line : absl::StrSplit(page->body, '\n')) {
    if (!absl::StartsWith(line, "khet_push_")) continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(space + 1), &value)) {
      continue;
    }
    const absl::string_view series = line.substr(0, space);
    // The one label's value: {name="value"}.
    std::string label;
    if (const size_t quote = series.find('"');
        quote != absl::string_view::npos) {
      absl::string_view rest = series.substr(quote + 1);
      label = std::string(rest.substr(0, rest.find('"')));
    }
    if (series == "khet_push_boards") {
      m.boards += value;
    } else if (series == "khet_push_connections") {
      m.connections += value;
    } else if (absl::StartsWith(series, "khet_push_deliveries_total{")) {
      m.deliveries[label] += value;
    } else if (absl::StartsWith(series, "khet_push_drops_total{")) {
      m.drops[label] += value;
    } else if (absl::StartsWith(series, "khet_push_delivery_seconds_bucket{")) {
      double le = INFINITY;
      if (label != "+Inf" && !absl::SimpleAtod(label, &le)) continue;
      auto bucket = std::find_if(m.buckets.begin(), m.buckets.end(),
                                 [le](const auto& b) { return b.first == le; });
      if (bucket == m.buckets.end()) {
        m.buckets.emplace_back(le, value);
      } else {
        bucket->second += value;
      }
    } else if (series == "khet_push_delivery_seconds_sum") {
      m.sum += value;
    } else if (series == "khet_push_delivery_seconds_count") {
      m.count += value;
    }
  }
  return true;
}

}  // namespace

PushMetrics ReadPushMetrics(const std::vector<int>& http_ports) {
  PushMetrics m;
  m.read = !http_ports.empty();  // no khetd named: nothing read
  for (int port : http_ports) {
    if (!AddPushMetrics(port, m)) return PushMetrics();
  }
  return m;
}

// `end`'s counters and histogram less `start`'s (an empty `start`: since
// khetd started), in words.
std::string PushMetricsText(const PushMetrics& end, const PushMetrics& start) {
  auto counters = [](const std::map<std::string, double>& now,
                     const std::map<std::string, double>& before) {
    std::string text;
    for (const auto& [label, value] : now) {
      const auto it = before.find(label);
      const double n = value - (it == before.end() ? 0 : it->second);
      if (n > 0) {
        absl::StrAppend(&text, text.empty() ? "" : ", ", label, " ",
                        static_cast<int64_t>(n));
      }
    }
    return text.empty() ? std::string("none") : text;
  };
  const double count = end.count - start.count;
  // The bucket holding a share `q` of the deliveries, as "<= X ms".
  auto within = [&](double q) -> std::string {
    for (size_t i = 0; i < end.buckets.size(); ++i) {
      const double before =
          i < start.buckets.size() ? start.buckets[i].second : 0;
      if (count > 0 && end.buckets[i].second - before >= q * count) {
        const double le = end.buckets[i].first;
        return std::isinf(le) ? std::string("> 10 s")
                              : absl::StrCat("<= ", le * 1000, " ms");
      }
    }
    return "-";
  };
  return absl::StrFormat(
      "khet_push_deliveries_total %s; khet_push_drops_total %s; "
      "khet_push_delivery_seconds (event stamped -> board's answer) %.0f, "
      "mean %.2f ms, p50 %s, p99 %s",
      counters(end.deliveries, start.deliveries),
      counters(end.drops, start.drops), count,
      count > 0 ? 1000 * (end.sum - start.sum) / count : 0.0, within(0.5),
      within(0.99));
}

bool PrintPushed(const BoardsOptions& options, const Counts& all,
                 const std::vector<std::unique_ptr<PushReceiver>>& receivers,
                 int64_t unknown_targets, const PushMetrics& start,
                 const PushMetrics& end) {
  int64_t receiver_connections = 0, receiver_bad = 0;
  for (const auto& receiver : receivers) {
    receiver_connections += receiver->counts().connections;
    receiver_bad += receiver->counts().bad;
  }
  std::printf(
      "  pushed (from set-up to the end): %lld deliveries to %d "
      "receiving server%s over %lld connections from khetd; bad "
      "signature %lld, out of order %lld, versions skipped %lld, "
      "unknown URL %lld, not a POST %lld, sessions instead of events "
      "%lld\n",
      static_cast<long long>(all.deliveries), options.client_addresses,
      options.client_addresses == 1 ? "" : "s",
      static_cast<long long>(receiver_connections),
      static_cast<long long>(all.bad_signatures),
      static_cast<long long>(all.out_of_order),
      static_cast<long long>(all.gaps), static_cast<long long>(unknown_targets),
      static_cast<long long>(receiver_bad), static_cast<long long>(all.states));
  if (start.read && end.read) {
    std::printf(
        "  khetd's /metrics at the end: khet_push_boards %.0f, "
        "khet_push_connections %.0f\n"
        "    in the window and its grace: %s\n"
        "    since khetd started: %s\n",
        end.boards, end.connections, PushMetricsText(end, start).c_str(),
        PushMetricsText(end, PushMetrics()).c_str());
  } else {
    std::printf("  khetd's /metrics: not read\n");
  }
  return all.bad_signatures + all.out_of_order + all.gaps + unknown_targets +
             receiver_bad ==
         0;
}

}  // namespace khet::load::boards_internal
