#include <gtest/gtest.h>

#include "sim/core/stats.h"

namespace npu::sim {
namespace {

TEST(Stats, ValuesAndStableJsonOrder) {
    StatGroup g("kpu");
    Counter& cycles = g.counter("cycles", "cycles", "busy cycles");
    Counter& macs = g.counter("macs", "MAC", "multiply-accumulates");
    Average& lat = g.average("latency", "ns", "per-layer latency");
    g.formula("utilization", "ratio", "MACs per cycle over 576 lanes", "macs / (cycles * 576)",
              [&] {
                  return static_cast<double>(macs.value()) /
                         (static_cast<double>(cycles.value()) * 576.0);
              });
    StatGroup& dma = g.group("dma");
    dma.counter("bytes", "bytes", "bytes moved") += 64;

    cycles += 1000;
    macs += 288000;
    ++cycles;
    lat.sample(10);
    lat.sample(30);

    EXPECT_EQ(cycles.value(), 1001u);
    EXPECT_DOUBLE_EQ(lat.mean(), 20.0);
    EXPECT_EQ(lat.min(), 10.0);
    EXPECT_EQ(lat.max(), 30.0);

    const auto j = g.to_json();
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) {
        keys.push_back(it.key());
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"cycles", "macs", "latency", "utilization", "dma"}));
    EXPECT_EQ(j["cycles"]["value"], 1001);
    EXPECT_EQ(j["cycles"]["unit"], "cycles");
    EXPECT_EQ(j["cycles"]["desc"], "busy cycles");
    EXPECT_DOUBLE_EQ(j["utilization"]["value"].get<double>(), 288000.0 / (1001.0 * 576.0));
    EXPECT_EQ(j["utilization"]["formula"], "macs / (cycles * 576)");
    EXPECT_EQ(j["dma"]["bytes"]["value"], 64);
    EXPECT_EQ(j.dump(),
              g.to_json().dump());  // same order every time

    g.reset();
    EXPECT_EQ(cycles.value(), 0u);
    EXPECT_EQ(lat.count(), 0u);
    EXPECT_TRUE(g.to_json()["latency"]["min"].is_null());
}

TEST(Stats, HistogramBuckets) {
    StatGroup g("g");
    Histogram& h = g.histogram("burst_len", "beats", "beats per burst", 0, 4, 4);  // [0,16)
    for (double v : {-1.0, 0.0, 3.9, 4.0, 15.0, 16.0, 100.0}) {
        h.sample(v);
    }
    EXPECT_EQ(h.underflow(), 1u);
    EXPECT_EQ(h.buckets(), (std::vector<uint64_t>{2, 1, 0, 1}));
    EXPECT_EQ(h.overflow(), 2u);
    EXPECT_EQ(h.count(), 7u);
}

TEST(StatsDeathTest, DuplicateNameIsOurBug) {
    StatGroup g("kpu");
    g.counter("cycles", "cycles", "");
    EXPECT_DEATH(g.counter("cycles", "cycles", ""), "stat group kpu: 'cycles' registered twice");
}

}  // namespace
}  // namespace npu::sim
