// Fuzz entry points for every parser. Each must turn any input into a value or a sim::Error,
// never a crash, hang or other exception. Used by libFuzzer (fuzz_*.cpp, the `fuzz` preset) and by
// a seeded mutation test in the normal suite (fuzz_smoke_test.cpp), which also runs under ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/npy.h"

namespace npu::fuzz {

inline void npy(const uint8_t* data, size_t size) {
    try {
        const sim::Tensor t = sim::parse_npy(data, size, "fuzz.npy");
        const auto again = sim::encode_npy(t);  // what we read, we can write back
        (void)again;
    } catch (const sim::Error&) {
    }
}

// Reads the input as a platform-like YAML document with every kind of typed read.
inline void config(const uint8_t* data, size_t size) {
    try {
        auto doc = sim::ConfigDocument::parse(
            std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
        sim::ConfigNode root = doc.root();
        if (auto p = root.optional_child("platform")) {
            p->get<std::string>("name", "");
            p->get<double>("quantum_ns", 1.0, 0.0, 1e9);
            p->get_hz("clock_hz", 1);
            for (const sim::ConfigNode& m : p->optional_items("memories")) {
                m.get<uint64_t>("base_addr", 0);
                m.get_bytes("size_bytes", 0);
                m.get<bool>("dmi", true);
                m.get<int8_t>("signed", 0);
            }
        }
        doc.finish();
    } catch (const sim::Error&) {
    }
}

}  // namespace npu::fuzz
