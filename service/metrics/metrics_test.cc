// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/metrics/metrics.h"

#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/metrics/text_format.h"

namespace khet::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What a scraper reads back from the text format: a strict parser of
// version 0.0.4 that fails the test on anything malformed.
struct ParsedSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};
struct ParsedFamily {
  std::string help;
  std::string type;
  std::vector<ParsedSample> samples;
};

// Reads `"..."` at text[*at], undoing \\, \" and \n; false on anything
// else.
bool ReadQuoted(const std::string& text, size_t* at, std::string* out) {
  if (*at >= text.size() || text[*at] != '"') return false;
  for (size_t i = *at + 1; i < text.size(); ++i) {
    if (text[i] == '"') {
      *at = i + 1;
      return true;
    }
    if (text[i] != '\\') {
      *out += text[i];
      continue;
    }
    if (++i == text.size()) return false;
    if (text[i] == '\\' || text[i] == '"') {
      *out += text[i];
    } else if (text[i] == 'n') {
      *out += '\n';
    } else {
      return false;
    }
  }
  return false;
}

bool ParseValue(absl::string_view text, double* value) {
  if (text == "+Inf") {
    *value = std::numeric_limits<double>::infinity();
    return true;
  }
  return absl::SimpleAtod(text, value);
}

std::map<std::string, ParsedFamily> Parse(const std::string& text) {
  std::map<std::string, ParsedFamily> families;
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  std::string current;  // the family of the last TYPE line
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "# HELP ")) {
      const size_t space = line.find(' ');
      EXPECT_NE(space, absl::string_view::npos) << line;
      const std::string name(line.substr(0, space));
      EXPECT_EQ(families.count(name), 0u) << "HELP twice for " << name;
      std::string help(line.substr(space + 1));
      // Unescape \\ and \n only.
      std::string plain;
      for (size_t i = 0; i < help.size(); ++i) {
        if (help[i] == '\\' && i + 1 < help.size()) {
          ++i;
          EXPECT_TRUE(help[i] == '\\' || help[i] == 'n') << help;
          plain += help[i] == 'n' ? '\n' : '\\';
        } else {
          plain += help[i];
        }
      }
      families[name].help = plain;
      current = "";
      continue;
    }
    if (absl::ConsumePrefix(&line, "# TYPE ")) {
      const std::vector<std::string> parts = absl::StrSplit(line, ' ');
      EXPECT_EQ(parts.size(), 2u) << line;
      EXPECT_EQ(families.count(parts[0]), 1u) << "TYPE before HELP";
      EXPECT_THAT((std::vector<std::string>{"counter", "gauge", "histogram"}),
                  testing::Contains(parts[1]));
      families[parts[0]].type = parts[1];
      current = parts[0];
      continue;
    }
    EXPECT_NE(line[0], '#') << line;
    ParsedSample sample;
    const std::string text_line(line);
    size_t at = text_line.find_first_of("{ ");
    EXPECT_NE(at, std::string::npos) << line;
    sample.name = text_line.substr(0, at);
    if (text_line[at] == '{') {
      ++at;
      while (text_line[at] != '}') {
        const size_t eq = text_line.find('=', at);
        EXPECT_NE(eq, std::string::npos) << line;
        const std::string label = text_line.substr(at, eq - at);
        at = eq + 1;
        std::string value;
        EXPECT_TRUE(ReadQuoted(text_line, &at, &value)) << line;
        EXPECT_EQ(sample.labels.count(label), 0u) << line;
        sample.labels[label] = value;
        if (text_line[at] == ',') ++at;
      }
      ++at;
    }
    EXPECT_EQ(text_line[at], ' ') << line;
    EXPECT_TRUE(ParseValue(text_line.substr(at + 1), &sample.value)) << line;
    // The sample belongs to the family of the TYPE line just before.
    std::string family = sample.name;
    if (families[current].type == "histogram") {
      for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
        if (absl::EndsWith(family, suffix)) {
          family.resize(family.size() - suffix.size());
          break;
        }
      }
    }
    EXPECT_EQ(family, current) << line;
    families[current].samples.push_back(std::move(sample));
  }
  // Histograms: buckets cumulative, ending in +Inf, equal to _count.
  for (const auto& [name, family] : families) {
    if (family.type != "histogram") continue;
    double last = 0;
    bool inf_seen = false;
    for (const ParsedSample& s : family.samples) {
      if (s.name == name + "_bucket") {
        EXPECT_GE(s.value, last) << name;
        last = s.value;
        inf_seen = s.labels.at("le") == "+Inf";
      } else if (s.name == name + "_count") {
        EXPECT_TRUE(inf_seen) << name;
        EXPECT_EQ(s.value, last) << name;
        last = 0;
      }
    }
  }
  return families;
}

double ValueOf(const ParsedFamily& family, const std::string& name,
               const std::map<std::string, std::string>& labels) {
  for (const ParsedSample& s : family.samples) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  ADD_FAILURE() << "no sample " << name;
  return -1;
}

TEST(MetricsTest, TextFormatReadsBack) {
  Registry registry;
  CounterFamily& calls = registry.AddCounter(
      "khet_calls_total", "Calls.\nBy method \\ code.", {"method", "code"});
  calls.Get({"MakeMove", "OK"}).Increment(3);
  calls.Get({"Odd \"quoted\" \\ value\nline", "NOT_FOUND"}).Increment();
  GaugeFamily& gauge = registry.AddGauge("khet_level", "A level.");
  gauge.Get({}).Set(-2.5);
  HistogramFamily& latency = registry.AddHistogram(
      "khet_latency_seconds", "Latency.", {"method"}, {0.001, 0.01, 0.1});
  for (const double v : {0.0005, 0.001, 0.05, 0.05, 7.0}) {
    latency.Get({"MakeMove"}).Observe(v);
  }
  registry.AddGaugeCallback("khet_sessions", "Sessions.", {"status"},
                            [](const GaugeCallback::Emit& emit) {
                              emit({"IN_PROGRESS"}, 4);
                              emit({"FINISHED"}, 1);
                            });

  const std::string text = TextExposition(registry.Collect());
  const std::map<std::string, ParsedFamily> parsed = Parse(text);
  ASSERT_EQ(parsed.size(), 4u) << text;

  const ParsedFamily& c = parsed.at("khet_calls_total");
  EXPECT_EQ(c.type, "counter");
  EXPECT_EQ(c.help, "Calls.\nBy method \\ code.");
  EXPECT_EQ(
      ValueOf(c, "khet_calls_total", {{"method", "MakeMove"}, {"code", "OK"}}),
      3);
  EXPECT_EQ(ValueOf(c, "khet_calls_total",
                    {{"method", "Odd \"quoted\" \\ value\nline"},
                     {"code", "NOT_FOUND"}}),
            1);
  EXPECT_EQ(ValueOf(parsed.at("khet_level"), "khet_level", {}), -2.5);

  const ParsedFamily& h = parsed.at("khet_latency_seconds");
  EXPECT_EQ(h.type, "histogram");
  const std::map<std::string, std::string> mm = {{"method", "MakeMove"}};
  auto bucket = [&](const std::string& le) {
    return ValueOf(h, "khet_latency_seconds_bucket",
                   {{"method", "MakeMove"}, {"le", le}});
  };
  EXPECT_EQ(bucket("0.001"), 2);  // bounds are inclusive
  EXPECT_EQ(bucket("0.01"), 2);
  EXPECT_EQ(bucket("0.1"), 4);
  EXPECT_EQ(bucket("+Inf"), 5);
  EXPECT_EQ(ValueOf(h, "khet_latency_seconds_count", mm), 5);
  EXPECT_DOUBLE_EQ(ValueOf(h, "khet_latency_seconds_sum", mm), 7.1015);

  const ParsedFamily& g = parsed.at("khet_sessions");
  EXPECT_EQ(g.type, "gauge");
  EXPECT_EQ(ValueOf(g, "khet_sessions", {{"status", "IN_PROGRESS"}}), 4);
}

TEST(MetricsTest, ExactLines) {
  Registry registry;
  registry.AddCounter("a_total", "A.", {"k"}).Get({"v"}).Increment(2);
  registry.AddHistogram("b_seconds", "B.", {}, {0.5, 1}).Get({}).Observe(0.75);
  EXPECT_EQ(TextExposition(registry.Collect()),
            "# HELP a_total A.\n"
            "# TYPE a_total counter\n"
            "a_total{k=\"v\"} 2\n"
            "# HELP b_seconds B.\n"
            "# TYPE b_seconds histogram\n"
            "b_seconds_bucket{le=\"0.5\"} 0\n"
            "b_seconds_bucket{le=\"1\"} 1\n"
            "b_seconds_bucket{le=\"+Inf\"} 1\n"
            "b_seconds_sum 0.75\n"
            "b_seconds_count 1\n");
}

TEST(MetricsTest, Numbers) {
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(12), "12");
  EXPECT_EQ(FormatNumber(0.00025), "0.00025");
  EXPECT_EQ(FormatNumber(0.0001), "0.0001");
  EXPECT_EQ(FormatNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatNumber(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatNumber(1e-7), "1e-07");
  EXPECT_EQ(FormatNumber(1e21), "1e+21");
  EXPECT_EQ(FormatNumber(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatNumber(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatNumber(std::nan("")), "NaN");
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(EscapeHelp("a\"b\\c\nd"), "a\"b\\\\c\\nd");
}

TEST(MetricsTest, SeriesAreStableAndSorted) {
  Registry registry;
  CounterFamily& family = registry.AddCounter("c_total", "C.", {"k"});
  Counter& b = family.Get({"b"});
  EXPECT_EQ(&family.Get({"b"}), &b);
  family.Get({"a"}).Increment();
  const std::vector<FamilySnapshot> snapshot = registry.Collect();
  ASSERT_EQ(snapshot[0].samples.size(), 2u);
  EXPECT_THAT(snapshot[0].samples[0].label_values, ElementsAre("a"));
  EXPECT_THAT(snapshot[0].samples[1].label_values, ElementsAre("b"));
}

TEST(MetricsTest, LabelSetsBeyondTheBoundShareOneSeries) {
  Registry registry;
  CounterFamily& family = registry.AddCounter("c_total", "C.", {"path"});
  const size_t n = CounterFamily::kMaxSeries + 500;
  for (size_t i = 0; i < n; ++i) {
    family.Get({absl::StrCat("/x", i)}).Increment();
  }
  const std::vector<FamilySnapshot> snapshot = registry.Collect();
  EXPECT_EQ(snapshot[0].samples.size(), CounterFamily::kMaxSeries + 1);
  double total = 0;
  double other = 0;
  for (const Sample& s : snapshot[0].samples) {
    total += s.value;
    if (s.label_values[0] == "other") other = s.value;
  }
  EXPECT_EQ(total, n);
  EXPECT_EQ(other, 500);
  // Series made before the bound was reached keep their own.
  EXPECT_EQ(family.Get({"/x3"}).value(), 1u);
}

TEST(MetricsTest, ConcurrentUpdatesAllCount) {
  Registry registry;
  CounterFamily& counters = registry.AddCounter("c_total", "C.", {"k"});
  HistogramFamily& histograms =
      registry.AddHistogram("h", "H.", {"k"}, PowersOfTwo(8));
  GaugeFamily& gauges = registry.AddGauge("g", "G.");
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        // New series appear while others count.
        counters.Get({absl::StrCat(i % 50)}).Increment();
        histograms.Get({"x"}).Observe(t + 1);
        gauges.Get({}).Add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  double total = 0;
  for (const Sample& s : counters.Collect().samples) total += s.value;
  EXPECT_EQ(total, kThreads * kEach);
  const Histogram::Snapshot h = histograms.Get({"x"}).Read();
  EXPECT_EQ(h.count, static_cast<uint64_t>(kThreads * kEach));
  EXPECT_EQ(h.sum, kEach * (1 + 2 + 3 + 4));
  EXPECT_THAT(h.cumulative,
              ElementsAre(kEach, 2 * kEach, 4 * kEach, 4 * kEach, 4 * kEach));
  EXPECT_EQ(gauges.Get({}).value(), kThreads * kEach);
}

TEST(MetricsDeathTest, BadNamesAbort) {
  Registry registry;
  EXPECT_DEATH(registry.AddCounter("bad-name", "x"), "invalid metric name");
  registry.AddCounter("ok_total", "x");
  EXPECT_DEATH(registry.AddCounter("ok_total", "x"), "added twice");
  EXPECT_DEATH(registry.AddHistogram("h", "x", {"le"}, {1}),
               "invalid label name");
  EXPECT_DEATH(registry.AddHistogram("h2", "x", {}, {2, 1}),
               "strictly increasing");
}

TEST(MetricsTest, HelpAndTypeForFamiliesWithoutSeries) {
  Registry registry;
  registry.AddCounter("none_total", "Nothing yet.", {"k"});
  EXPECT_THAT(TextExposition(registry.Collect()),
              HasSubstr("# TYPE none_total counter\n"));
}

}  // namespace
}  // namespace khet::metrics
