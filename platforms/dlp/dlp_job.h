// YAML for the DL processor: the platform (`platform: {kind: dlp, ...}`, configs/dlp_*.yaml)
// and a network as a layer list (`network:`). Keys: docs/dlp.md. Problems are recorded in the
// document (call finish()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/dlp/dlp_config.h"
#include "models/dlp/dlp_cost.h"
#include "models/dlp/dlp_network.h"
#include "models/dlp/dlp_resources.h"
#include "sim/core/config.h"

namespace npu::dlp {

struct DlpPlatformConfig {
    std::string name = "dlp";
    DlpConfig dlp;
    DlpTiming timing;
    // The FPGA the processor is built for (resources; default the ZCU102's ZU9EG, its available
    // DSP, BRAM tiles and LUTs as dlhdl's estimator prints them: dlhdl_published_figures.md §2).
    FpgaDevice fpga{"xczu9eg-ffvb1156-2-e", FpgaFamily::xilinx, 2520, 912, 274080};
    uint64_t ddr_base_addr = 0x80000000;
    uint64_t ddr_size_bytes = uint64_t{512} << 20;
    uint64_t register_base_addr = 0xa0000000;
};

// Reads a `platform:` map of kind dlp.
DlpPlatformConfig read_dlp_platform(const sim::ConfigNode& platform);

struct NetworkFile {
    Network network;
    uint32_t frames = 1;
    uint32_t seed = 1;  // parameters not given are generated from it
};
// Reads a `network:` map; layer names must be unique; `input:` names a layer (default: the
// previous layer, or the network input for the first).
NetworkFile read_network(const sim::ConfigNode& network);
// A network file read, checked against the processor and its parameters filled (from the seed
// where not given): what run, estimate and regress start from. A path ending in .onnx is an ONNX
// model (dlp_onnx.h), its parameters its own.
// On an int8 processor an ONNX model is quantized from `calibration` (read_samples' format;
// without it only when `time_only`: the weights' exponents alone).
// `mean`/`std`: an ONNX model's input normalization when the model has none (one value per
// channel, or one for all).
NetworkFile load_network(const std::string& path, const DlpPlatformConfig& cfg,
                         const std::string& calibration = "", bool time_only = false,
                         const std::vector<float>& mean = {}, const std::vector<float>& std = {});
// Samples of the network's input: a float32 .npy of (Z, H, W) or (N, Z, H, W), or without a path
// 16 pseudo-random ones, uniform in −1..1 from the network's seed; `note` says which.
std::vector<std::vector<float>> read_samples(const std::string& path, const NetworkFile& f,
                                             std::string& note);

}  // namespace npu::dlp
