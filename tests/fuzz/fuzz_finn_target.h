// Fuzz entry point for the FINN-ONNX importer: any bytes give a design or one sim::Error. Used by
// libFuzzer (fuzz_finn.cpp) and by the seeded mutation test in the normal suite
// (tests/platforms/finn/test_finn_import.cpp), which also runs under ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platforms/finn/finn_import.h"
#include "sim/core/error.h"
#include "sim/onnx/onnx_import.h"

namespace npu::fuzz {

// Returns 0 when the bytes were refused, 1 when they imported.
inline int finn_model(const uint8_t* data, size_t size) {
    try {
        onnx::ImportOptions o;
        o.run_checker = false;
        o.other_domains = true;
        const onnx::Graph g =
            onnx::import_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", o);
        finn::import_finn(g, "fuzz.onnx");
        return 1;
    } catch (const sim::Error&) {
        return 0;
    }
}

}  // namespace npu::fuzz
