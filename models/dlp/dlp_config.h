// Configuration of the deep-learning processor in the style of the MATLAB Deep Learning HDL
// Toolbox (dlhdl.ProcessorConfig): thread numbers, data type, clock, module buffer sizes, the AXI
// master width and the DDR. Derived values: C = √ConvThreadNumber channels processed at once,
// N = 2^⌈log2 C⌉ values moved per transfer. Sources: ../shared/reference/seed_systems.md §1;
// keys and defaults: docs/dlp.md. Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/bus_cost.h"

namespace npu::sim {
class ConfigNode;
}

namespace npu::dlp {

enum class DataType { single, int8 };
const char* data_type_name(DataType t);
size_t element_bytes(DataType t);  // 4 or 1

struct DlpConfig {
    unsigned conv_thread_number = 16;  // ConvThreadNumber: 4, 9, 16, 25, 36, 49 or 64
    unsigned fc_thread_number = 4;     // FCThreadNumber
    DataType data_type = DataType::single;
    uint64_t target_frequency_hz = 200'000'000;  // TargetFrequency (ZCU102 default 200 MHz)
    std::array<uint64_t, 3> conv_input_memory_size{227, 227, 3};  // H, W, C of the conv buffer
    std::array<uint64_t, 3> conv_output_memory_size{227, 227, 3};
    uint64_t fc_input_memory_size = 25088;
    uint64_t fc_output_memory_size = 4096;
    // The AXI masters' data width (0: kDdrDataWidthBits) and the DDR behind them, at the
    // processor's clock; width and burst latency fitted to dlhdl's estimator (docs/dlp.md).
    unsigned axi_data_width_bits = 0;
    static constexpr unsigned kDdrDataWidthBits = 512;
    unsigned ddr_burst_latency_cycles = 58;
    unsigned ddr_max_burst_beats = 256;
    // Which MATLAB spatial dimension the external memory format calls x (docs/dlp.md):
    // true: x = rows (height), the first MATLAB dimension; false: x = columns (width).
    bool x_is_height = true;

    unsigned threads_c() const;      // C = √ConvThreadNumber
    unsigned transfer_n() const;     // N = 2^⌈log2 C⌉
    unsigned axi_bits() const;       // axi_data_width_bits or its default
    sim::BusConfig ddr_bus() const;  // the AXI masters' bus model
    // Every problem, one line each: "<key> is <value>, expected <range>".
    std::vector<std::string> problems() const;
    // Throws sim::Error listing problems() (prefix `where`).
    void validate(const std::string& where) const;
};

// Reads a `dlp:` map over `base` (the defaults unless given); problems are recorded in the node's
// document.
DlpConfig read_dlp_config(const sim::ConfigNode& node, const DlpConfig& base = {});

}  // namespace npu::dlp
