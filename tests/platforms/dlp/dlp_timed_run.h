// The DL processor's timed platform running one int8 frame of a network, for its tests.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include <gtest/gtest.h>

#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_compiler.h"
#include "platforms/dlp/dlp_job.h"
#include "platforms/dlp/dlp_platform.h"

namespace npu::test {

// Compiles `n` for `cfg` (its DDR base), loads the program and `input` (int8, CHW, laid out in
// the processor's activation format) into `soc` and runs the simulation to its end; the program
// is returned for what the test costs or reads. A run that did not finish fails the test.
inline dlp::Program run_int8_frame(dlp::DlpPlatform& soc, const dlp::Network& n,
                                   const dlp::DlpPlatformConfig& cfg,
                                   const std::vector<int8_t>& input) {
    dlp::CompileOptions co;
    co.ddr_base_addr = cfg.ddr_base_addr;
    dlp::Program p = dlp::compile(n, cfg.dlp, co);
    soc.load(p, {dlp::format_activation(input, n.input, cfg.dlp)}, false);
    sc_core::sc_start();
    EXPECT_TRUE(soc.result().done) << soc.result().error;
    return p;
}

}  // namespace npu::test
