// What the SoC block tests share: a thread that runs a test's body (bus accesses and waits) and
// 32-bit register reads and writes that expect an OK response.
#pragma once

#include <cstdint>
#include <functional>

#include <systemc>

#include <gtest/gtest.h>

#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {

struct Runner : sc_core::sc_module {
    std::function<void()> body;
    explicit Runner(sc_core::sc_module_name n)
        : sc_module(n) {
        SC_HAS_PROCESS(Runner);
        SC_THREAD(run);
    }
    void run() { body(); }
};

inline uint32_t rd32(TestInitiator& i, uint64_t a) {
    uint32_t v = 0;
    EXPECT_EQ(i.read(a, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << a;
    return v;
}

inline void wr32(TestInitiator& i, uint64_t a, uint32_t v) {
    EXPECT_EQ(i.write(a, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << a;
}

}  // namespace npu::test
