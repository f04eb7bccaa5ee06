// The FINN platform face (platforms/common/platform_face.h): `npusim run --model NET.onnx
// [--folding F.json] [--input X.npy] [--size-fifos]` runs a FINN-ONNX dataflow design in
// SystemC (values, per-layer cycles and stalls, FIFO occupancy, interval and latency at the
// platform's clock; with --size-fifos the smallest FIFO depths that keep the rate, written as a
// folding config FINN reads); `npusim estimate --model NET.onnx [--folding F.json]` gives FINN's
// own formula estimate; `npusim info`. docs/finn.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/common/platform_face.h"

namespace npu::finn {

struct FinnModel;

struct FinnPlatformConfig {
    std::string name = "finn";
    uint64_t clock_hz = 100'000'000;  // FINN's default synth_clk_period_ns 10
    uint64_t frames = 8;              // frames of pseudo-random input when --input is not given
    uint32_t seed = 1;
    uint64_t min_fifo_depth = 2;  // FIFO sizing's smallest depth (FINN inserts none below 2)
    bool dsp58 = false;  // dsp_block DSP58 (Versal) or DSP48: RTL layers' DSP estimate only
};

FinnPlatformConfig read_finn_platform(const sim::ConfigNode& platform);

// The frames of `path` (any number of whole frames of the model's input, values of its input
// type), or `cfg.frames` pseudo-random frames; `described` says which.
std::vector<int64_t> read_inputs(const std::string& path, const FinnModel& m,
                                 const FinnPlatformConfig& cfg, std::string& described);

class FinnFace final : public platform::Platform {
public:
    FinnFace(FinnPlatformConfig cfg, std::string source);
    std::string describe() const override;
    // `npusim info --model NET.onnx`: the chain as imported (converters inserted, FIFO depths)
    // with each layer's folding and formula.
    std::string describe_program(const std::string& path) const override;
    platform::RunReport run(const platform::RunRequest& request) override;
    platform::EstimateReport estimate(const platform::EstimateRequest& request) const override;
    // The streaming design's layers against their functions (finn_regress.cpp).
    platform::RunReport regress(const platform::RegressRequest& request) const override;

private:
    FinnPlatformConfig m_cfg;
};

// The `kind: finn` entry of the platform registry.
platform::PlatformKind finn_platform_kind();

}  // namespace npu::finn
