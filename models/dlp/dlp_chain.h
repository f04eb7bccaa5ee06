// A network's layers chained on CHW values by the modules' functions (dlp_func), without DDR
// formats or a bus: every layer's output for one sample, in single precision with the layers'
// float parameters, or in int8 with their int8 ones. What calibration measures ranges with and
// regressions compare; the same functions the timed module's execute_layer calls. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/dlp/dlp_network.h"

namespace npu::dlp {

// An adder's constant operand over its input's map (C x plane values).
template <typename T>
std::vector<T> broadcast_constant(const std::vector<T>& per_channel, size_t plane) {
    std::vector<T> v;
    v.reserve(per_channel.size() * plane);
    for (T c : per_channel) {
        v.insert(v.end(), plane, c);
    }
    return v;
}

std::vector<std::vector<float>> run_chain_single(const Network& n, const std::vector<float>& x);
std::vector<std::vector<int8_t>> run_chain_int8(const Network& n, const std::vector<int8_t>& x);

}  // namespace npu::dlp
