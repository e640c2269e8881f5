// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's metrics: counters, gauges and histograms with fixed buckets, in
// families keyed by label values, collected in a Registry that writes them in
// the Prometheus text exposition format 0.0.4 (text_format.h).
//
// Cost on the hot path: Counter::Increment and Histogram::Observe are a few
// relaxed atomic operations; Family::Get hashes the label values and probes
// a fixed table of atomic pointers, taking the family's lock only the first
// time a label set appears. Scrapes lock each family's list of series, never
// the series themselves. All classes are thread-safe.
#ifndef KHET_SERVICE_METRICS_METRICS_H_
#define KHET_SERVICE_METRICS_METRICS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/base/mutex.h"

namespace khet::metrics {

// A count that only goes up.
class Counter {
 public:
  void Increment(uint64_t n = 1) {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double value) {
    bits_.store(ToBits(value), std::memory_order_relaxed);
  }
  void Add(double delta);
  double value() const;

 private:
  static uint64_t ToBits(double value);
  std::atomic<uint64_t> bits_{0};  // the double's bits; 0 is 0.0
};

// Observations counted into buckets fixed at creation, with their sum.
class Histogram {
 public:
  // `bounds`: the buckets' upper bounds (inclusive), strictly increasing and
  // finite; the +Inf bucket is implied.
  explicit Histogram(absl::Span<const double> bounds);

  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // per bound, then +Inf
    uint64_t count = 0;                // == cumulative.back()
    double sum = 0;
  };
  // The buckets as counts of observations <= each bound. Observations made
  // while it reads may be in the buckets and not yet in the sum.
  Snapshot Read() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  // Non-cumulative: buckets_[i] counts values in (bounds_[i-1], bounds_[i]];
  // the last one those above every bound.
  const std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<uint64_t> sum_bits_{0};
};

// Bounds for latencies in seconds: 100 us to 10 s.
std::vector<double> LatencyBounds();
// Bounds 1, 2, 4, ... up to `max` (a power of two), for sizes.
std::vector<double> PowersOfTwo(double max);

enum class Type { kCounter, kGauge, kHistogram };

// One family's series as a scrape sees them.
struct Sample {
  std::vector<std::string> label_values;
  double value = 0;               // counters and gauges
  Histogram::Snapshot histogram;  // histograms
};
struct FamilySnapshot {
  std::string name;
  std::string help;
  Type type = Type::kCounter;
  std::vector<std::string> label_names;
  std::vector<double> bounds;  // histograms
  std::vector<Sample> samples;
};

// What a Registry reads at scrape time.
class Collector {
 public:
  virtual ~Collector() = default;
  virtual FamilySnapshot Collect() const = 0;
};

// Series of one metric, one per set of label values (in the order of the
// label names). At most max_series of them: beyond, every new label set
// shares one series whose values are all "other", so that label values
// taken from requests can never grow a family without bound. The series
// live as long as the family; pointers returned stay valid.
template <typename Metric>
class Family final : public Collector {
 public:
  static constexpr size_t kMaxSeries = 1024;

  // `make` creates each series (histograms need their bounds).
  Family(std::string name, std::string help, Type type,
         std::vector<std::string> label_names, std::function<Metric*()> make,
         std::vector<double> bounds = {});
  ~Family() override;

  // The series of `values` (as many as the label names), created on first
  // use. Lock-free once it exists.
  Metric& Get(absl::Span<const absl::string_view> values);
  Metric& Get(std::initializer_list<absl::string_view> values) {
    return Get(absl::MakeConstSpan(values.begin(), values.size()));
  }

  FamilySnapshot Collect() const override;

 private:
  struct Series {
    std::vector<std::string> values;
    size_t hash = 0;
    std::unique_ptr<Metric> metric;
  };
  // Open addressing, twice kMaxSeries slots; a slot, once set, never
  // changes.
  static constexpr size_t kSlots = 2 * kMaxSeries;

  static size_t Hash(absl::Span<const absl::string_view> values);
  static bool Matches(const Series& series,
                      absl::Span<const absl::string_view> values);
  Metric& Create(absl::Span<const absl::string_view> values, size_t hash);

  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> label_names_;
  const std::function<Metric*()> make_;
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<Series*>[]> slots_;
  mutable Mutex mu_;
  std::vector<std::unique_ptr<Series>> series_ ABSL_GUARDED_BY(mu_);
  Series* overflow_ ABSL_GUARDED_BY(mu_) = nullptr;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

// Gauges computed at scrape time: `read` calls `emit` once per series with
// its label values and value. `read` runs on the scraping thread.
class GaugeCallback final : public Collector {
 public:
  using Emit =
      std::function<void(std::vector<std::string> label_values, double value)>;
  GaugeCallback(std::string name, std::string help,
                std::vector<std::string> label_names,
                std::function<void(const Emit& emit)> read);
  FamilySnapshot Collect() const override;

 private:
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::function<void(const Emit& emit)> read_;
};

// Every metric of a process, in the order added. Names must be valid
// Prometheus names ([a-zA-Z_:][a-zA-Z0-9_:]*) and unique; label names
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__", and "le" not on
// histograms. Violations are programming errors (they abort).
class Registry {
 public:
  CounterFamily& AddCounter(std::string name, std::string help,
                            std::vector<std::string> label_names = {});
  GaugeFamily& AddGauge(std::string name, std::string help,
                        std::vector<std::string> label_names = {});
  HistogramFamily& AddHistogram(std::string name, std::string help,
                                std::vector<std::string> label_names,
                                std::vector<double> bounds);
  void AddGaugeCallback(std::string name, std::string help,
                        std::vector<std::string> label_names,
                        std::function<void(const GaugeCallback::Emit&)> read);

  // Every family's series now.
  std::vector<FamilySnapshot> Collect() const;

 private:
  void Check(const std::string& name,
             const std::vector<std::string>& label_names, bool histogram)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  std::vector<std::unique_ptr<Collector>> collectors_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> names_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet::metrics

#endif  // KHET_SERVICE_METRICS_METRICS_H_
