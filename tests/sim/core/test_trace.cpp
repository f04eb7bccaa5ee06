#include <gtest/gtest.h>

#include "sim/core/trace.h"

namespace npu::sim {
namespace {

TEST(Trace, CompleteEventsPerTrackSortedByTime) {
    TraceWriter t;
    const int kpu = t.track("kpu");
    const int dma = t.track("dma");
    EXPECT_EQ(t.track("kpu"), kpu);  // same name, same track
    t.complete(dma, "out", "dma", 3'000'000, 500'000);
    t.complete(kpu, "layer 0", "layer", 1'500'000, 1'000'000, {{"macs", 42}});
    const auto j = t.to_json();
    EXPECT_EQ(j["displayTimeUnit"], "ns");
    const auto& ev = j["traceEvents"];
    // process_name, then thread_name + thread_sort_index per track, then events by time.
    ASSERT_EQ(ev.size(), 1u + 4u + 2u);
    EXPECT_EQ(ev[1]["args"]["name"], "kpu");
    EXPECT_EQ(ev[3]["args"]["name"], "dma");
    EXPECT_EQ(ev[5]["name"], "layer 0");
    EXPECT_EQ(ev[5]["ph"], "X");
    EXPECT_DOUBLE_EQ(ev[5]["ts"].get<double>(), 1.5);  // 1.5e6 ps = 1.5 us
    EXPECT_DOUBLE_EQ(ev[5]["dur"].get<double>(), 1.0);
    EXPECT_EQ(ev[5]["tid"], kpu);
    EXPECT_EQ(ev[5]["args"]["macs"], 42);
    EXPECT_EQ(ev[6]["tid"], dma);
}

TEST(Trace, DisabledWriterDropsEvents) {
    TraceWriter t(false);
    t.complete(t.track("kpu"), "x", "y", 0, 1);
    EXPECT_EQ(t.event_count(), 0u);
}

}  // namespace
}  // namespace npu::sim
