// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace khet::metrics {
namespace {

double FromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Adds `delta` to the double whose bits `bits` holds.
void AddToBits(std::atomic<uint64_t>& bits, double delta) {
  uint64_t old = bits.load(std::memory_order_relaxed);
  while (true) {
    const double sum = FromBits(old) + delta;
    uint64_t next;
    std::memcpy(&next, &sum, sizeof(next));
    if (bits.compare_exchange_weak(old, next, std::memory_order_relaxed)) {
      return;
    }
  }
}

[[noreturn]] void Die(const std::string& problem) {
  std::fprintf(stderr, "metrics: %s\n", problem.c_str());
  std::abort();
}

bool ValidName(absl::string_view name, bool colons) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok =
        absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_' ||
        (colons && c == ':') ||
        (i > 0 && absl::ascii_isdigit(static_cast<unsigned char>(c)));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void Gauge::Add(double delta) { AddToBits(bits_, delta); }

double Gauge::value() const {
  return FromBits(bits_.load(std::memory_order_relaxed));
}

uint64_t Gauge::ToBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

Histogram::Histogram(absl::Span<const double> bounds)
    : bounds_(bounds.begin(), bounds.end()),
      buckets_(new std::atomic<uint64_t>[bounds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i] = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
      Die("histogram bounds must be finite and strictly increasing");
  }
}

void Histogram::Observe(double value) {
  // Few buckets: a linear scan beats a binary search.
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  AddToBits(sum_bits_, value);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot out;
  out.cumulative.reserve(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    out.cumulative.push_back(total);
  }
  out.count = total;
  out.sum = FromBits(sum_bits_.load(std::memory_order_relaxed));
  return out;
}

std::vector<double> LatencyBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
}

std::vector<double> PowersOfTwo(double max) {
  std::vector<double> bounds;
  for (double b = 1; b <= max; b *= 2) bounds.push_back(b);
  return bounds;
}

template <typename Metric>
Family<Metric>::Family(std::string name, std::string help, Type type,
                       std::vector<std::string> label_names,
                       std::function<Metric*()> make,
                       std::vector<double> bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      make_(std::move(make)),
      bounds_(std::move(bounds)),
      slots_(new std::atomic<Series*>[kSlots]) {
  for (size_t i = 0; i < kSlots; ++i) slots_[i] = nullptr;
}

template <typename Metric>
Family<Metric>::~Family() = default;

template <typename Metric>
size_t Family<Metric>::Hash(absl::Span<const absl::string_view> values) {
  size_t hash = 0x9e3779b97f4a7c15u;
  for (const absl::string_view value : values) {
    hash = (hash ^ std::hash<std::string_view>()(
                       std::string_view(value.data(), value.size()))) *
           0x100000001b3u;
  }
  return hash;
}

template <typename Metric>
bool Family<Metric>::Matches(const Series& series,
                             absl::Span<const absl::string_view> values) {
  if (series.values.size() != values.size()) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (series.values[i] != values[i]) return false;
  }
  return true;
}

template <typename Metric>
Metric& Family<Metric>::Get(absl::Span<const absl::string_view> values) {
  if (values.size() != label_names_.size()) {
    Die(name_ + ": wrong number of label values");
  }
  const size_t hash = Hash(values);
  for (size_t probe = 0; probe < kSlots; ++probe) {
    Series* series =
        slots_[(hash + probe) % kSlots].load(std::memory_order_acquire);
    if (series == nullptr) break;  // not there: create it
    if (series->hash == hash && Matches(*series, values)) {
      return *series->metric;
    }
  }
  return Create(values, hash);
}

template <typename Metric>
Metric& Family<Metric>::Create(absl::Span<const absl::string_view> values,
                               size_t hash) {
  MutexLock lock(&mu_);
  // Another thread may have created it meanwhile; slots only fill up, so
  // probing again under the lock finds it or the free slot to take.
  size_t slot = kSlots;
  for (size_t probe = 0; probe < kSlots; ++probe) {
    const size_t at = (hash + probe) % kSlots;
    Series* series = slots_[at].load(std::memory_order_acquire);
    if (series == nullptr) {
      slot = at;
      break;
    }
    if (series->hash == hash && Matches(*series, values)) {
      return *series->metric;
    }
  }
  if (series_.size() >= kMaxSeries || slot == kSlots) {
    if (overflow_ == nullptr) {
      auto series = std::make_unique<Series>();
      series->values.assign(label_names_.size(), "other");
      series->metric.reset(make_());
      overflow_ = series.get();
      series_.push_back(std::move(series));
    }
    return *overflow_->metric;
  }
  auto series = std::make_unique<Series>();
  for (const absl::string_view value : values) {
    series->values.emplace_back(value);
  }
  series->hash = hash;
  series->metric.reset(make_());
  Series* const made = series.get();
  series_.push_back(std::move(series));
  slots_[slot].store(made, std::memory_order_release);
  return *made->metric;
}

template <typename Metric>
FamilySnapshot Family<Metric>::Collect() const {
  FamilySnapshot out;
  out.name = name_;
  out.help = help_;
  out.type = type_;
  out.label_names = label_names_;
  out.bounds = bounds_;
  MutexLock lock(&mu_);
  for (const std::unique_ptr<Series>& series : series_) {
    Sample sample;
    sample.label_values = series->values;
    if constexpr (std::is_same_v<Metric, Histogram>) {
      sample.histogram = series->metric->Read();
    } else {
      sample.value = static_cast<double>(series->metric->value());
    }
    out.samples.push_back(std::move(sample));
  }
  std::sort(out.samples.begin(), out.samples.end(),
            [](const Sample& a, const Sample& b) {
              return a.label_values < b.label_values;
            });
  return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

GaugeCallback::GaugeCallback(std::string name, std::string help,
                             std::vector<std::string> label_names,
                             std::function<void(const Emit& emit)> read)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      read_(std::move(read)) {}

FamilySnapshot GaugeCallback::Collect() const {
  FamilySnapshot out;
  out.name = name_;
  out.help = help_;
  out.type = Type::kGauge;
  out.label_names = label_names_;
  read_([&](std::vector<std::string> label_values, double value) {
    if (label_values.size() != label_names_.size()) {
      Die(name_ + ": wrong number of label values");
    }
    Sample sample;
    sample.label_values = std::move(label_values);
    sample.value = value;
    out.samples.push_back(std::move(sample));
  });
  return out;
}

void Registry::Check(const std::string& name,
                     const std::vector<std::string>& label_names,
                     bool histogram) {
  if (!ValidName(name, /*colons=*/true)) Die("invalid metric name " + name);
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
    Die("metric " + name + " added twice");
  }
  for (const std::string& label : label_names) {
    if (!ValidName(label, /*colons=*/false) || absl::StartsWith(label, "__") ||
        (histogram && label == "le")) {
      Die(name + ": invalid label name " + label);
    }
  }
  names_.push_back(name);
}

CounterFamily& Registry::AddCounter(std::string name, std::string help,
                                    std::vector<std::string> label_names) {
  MutexLock lock(&mu_);
  Check(name, label_names, false);
  auto family = std::make_unique<CounterFamily>(
      std::move(name), std::move(help), Type::kCounter, std::move(label_names),
      [] { return new Counter; });
  CounterFamily& out = *family;
  collectors_.push_back(std::move(family));
  return out;
}

GaugeFamily& Registry::AddGauge(std::string name, std::string help,
                                std::vector<std::string> label_names) {
  MutexLock lock(&mu_);
  Check(name, label_names, false);
  auto family = std::make_unique<GaugeFamily>(
      std::move(name), std::move(help), Type::kGauge, std::move(label_names),
      [] { return new Gauge; });
  GaugeFamily& out = *family;
  collectors_.push_back(std::move(family));
  return out;
}

HistogramFamily& Registry::AddHistogram(std::string name, std::string help,
                                        std::vector<std::string> label_names,
                                        std::vector<double> bounds) {
  MutexLock lock(&mu_);
  Check(name, label_names, true);
  Histogram check(bounds);  // aborts on bad bounds now, not at first use
  auto family = std::make_unique<HistogramFamily>(
      std::move(name), std::move(help), Type::kHistogram,
      std::move(label_names), [bounds] { return new Histogram(bounds); },
      bounds);
  HistogramFamily& out = *family;
  collectors_.push_back(std::move(family));
  return out;
}

void Registry::AddGaugeCallback(
    std::string name, std::string help, std::vector<std::string> label_names,
    std::function<void(const GaugeCallback::Emit&)> read) {
  MutexLock lock(&mu_);
  Check(name, label_names, false);
  collectors_.push_back(
      std::make_unique<GaugeCallback>(std::move(name), std::move(help),
                                      std::move(label_names), std::move(read)));
}

std::vector<FamilySnapshot> Registry::Collect() const {
  std::vector<const Collector*> collectors;
  {
    MutexLock lock(&mu_);
    for (const auto& collector : collectors_) {
      collectors.push_back(collector.get());
    }
  }
  // Outside the registry's lock: callbacks may take locks of their own.
  std::vector<FamilySnapshot> out;
  out.reserve(collectors.size());
  for (const Collector* collector : collectors) {
    out.push_back(collector->Collect());
  }
  return out;
}

}  // namespace khet::metrics
