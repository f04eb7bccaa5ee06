// The folding sweep file of `npusim estimate --model NET.onnx --layers SWEEP.json` on FINN:
// {"<layer name or op type>": {"PE": [1, 2, 4] or "all", "SIMD": ...}, ...} read against a
// design into the knobs models/finn/finn_sweep.h combines. Every problem is one sim::Error naming
// the file and the key. Pure C++; docs/finn.md, "Folding sweeps".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/finn/finn_sweep.h"
#include "sim/core/pareto.h"

namespace npu::finn {

// The knobs in layer order (PE before SIMD); an op type's entry applies to each layer of that
// type without an entry of its own. `path` names the file in messages.
std::vector<Knob> read_sweep(const std::vector<uint8_t>& bytes, const Design& d,
                             const std::string& path);

}  // namespace npu::finn
