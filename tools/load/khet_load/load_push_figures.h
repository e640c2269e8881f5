// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Push mode's figures: khetd's own figures of its pushes, read from its
// /metrics page at the start and the end of the measured window, and the
// report's lines on the pushed deliveries.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_FIGURES_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_FIGURES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tools/load/khet_load/load_board.h"
#include "tools/load/khet_load/load_boards.h"
#include "tools/load/khet_load/load_push_receiver.h"

namespace khet::load::boards_internal {

// khetd's own figures of its pushes, from one read of its /metrics page.
struct PushMetrics {
  bool read = false;
  double boards = 0, connections = 0;               // gauges
  std::map<std::string, double> deliveries, drops;  // by result, reason
  // khet_push_delivery_seconds: cumulative buckets (le, count), sum, count.
  std::vector<std::pair<double, double>> buckets;
  double sum = 0, count = 0;
};

// One read of /metrics of each khetd on 127.0.0.1:`http_ports`, the
// replicas' series added up; `read` false if a page could not be read.
PushMetrics ReadPushMetrics(const std::vector<int>& http_ports);

// `end`'s counters and histogram less `start`'s (an empty `start`: since
// khetd started), in words.
std::string PushMetricsText(const PushMetrics& end, const PushMetrics& start);

// Prints the pushed deliveries the boards counted (`all`, from set-up to
// the end), what the receiving servers counted (`receivers`, and the
// deliveries to no board's URL, `unknown_targets`) and khetd's /metrics at
// the window's start and at its end (grace included). False if any
// delivery was wrong: a bad signature, versions out of order or skipped, a
// URL of no board, or not a POST.
bool PrintPushed(const BoardsOptions& options, const Counts& all,
                 const std::vector<std::unique_ptr<PushReceiver>>& receivers,
                 int64_t unknown_targets, const PushMetrics& start,
                 const PushMetrics& end);

}  // namespace khet::load::boards_internal

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_FIGURES_H_
