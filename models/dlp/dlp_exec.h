// One layer of a program on DDR bytes: de-format the input image(s), run the module's arithmetic
// (dlp_func), format the output image. The single code path for values, used by the SystemC
// module (which moves the bytes over its AXI masters and charges time) and by functional runs.
// Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/dlp/dlp_config.h"
#include "models/dlp/dlp_program.h"

namespace npu::dlp {

struct LayerData {
    const uint8_t* input = nullptr;   // input image bytes (place.input_bytes)
    const uint8_t* input2 = nullptr;  // adder second image
    const uint8_t* weights = nullptr;
    const uint8_t* bias = nullptr;
};

// The output image bytes (place.output_bytes; none for a concat, whose inputs wrote its image).
// Throws sim::Error for a record the modules cannot run.
std::vector<uint8_t> execute_layer(const Record& r, const DlpConfig& cfg, const LayerData& d);

// CHW values <-> DDR image bytes of an activation in conv format.
std::vector<uint8_t> format_activation(const std::vector<float>& chw, const ActShape& s,
                                       const DlpConfig& cfg);
std::vector<uint8_t> format_activation(const std::vector<int8_t>& chw, const ActShape& s,
                                       const DlpConfig& cfg);
std::vector<float> read_activation_single(const uint8_t* bytes, const ActShape& s,
                                          const DlpConfig& cfg, bool fc_format);
std::vector<int8_t> read_activation_int8(const uint8_t* bytes, const ActShape& s,
                                         const DlpConfig& cfg, bool fc_format);

}  // namespace npu::dlp
