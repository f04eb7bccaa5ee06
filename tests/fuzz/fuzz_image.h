// Fuzz entry point for the image readers (sim/core/image.h): any bytes give a header check and,
// when it passes, a decoded tensor, or one sim::Error — never a crash, a read past the input or
// another exception. The header walkers (BMP rows, TGA run-length packets, PNM header) are ours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/image.h"

namespace npu::fuzz {

inline void image(const uint8_t* data, size_t size) {
    const std::vector<uint8_t> bytes(data, data + size);
    try {
        sim::check_image_bytes(bytes, "fuzz.img");
        const sim::Tensor t = sim::decode_image(bytes, "fuzz.img");
        (void)t;
    } catch (const sim::Error&) {
    }
}

}  // namespace npu::fuzz
