// An AIPP job's whole path as a fuzz entry point: any bytes are read as a job YAML (`aipp:` as
// configs/aipp.yaml); one that reads gets a source image of its input format (the built-in
// 320x240 scene, as `npusim aipp` without --input, or raw bytes of the size its `source:`
// declares, up to 256x256), its parameters are checked as `npusim aipp` checks them, and the
// load-image function runs into a tile. Any input gives a tile or one sim::Error, never a crash,
// hang or other exception. Tiles over 2^22 elements are skipped. Used by libFuzzer
// (fuzz_aipp_run.cpp) and by the seeded mutation test in the normal suite
// (tests/platforms/ascend/test_aipp_mutations.cpp), which also runs the first mutants on the timed
// platform and compares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/aipp/aipp_func.h"
#include "platforms/ascend/aipp_job.h"
#include "platforms/ascend/aipp_source.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/image.h"

namespace npu::fuzz {

constexpr size_t kAippTileElements = size_t{1} << 22;

struct AippPrepared {
    ascend::AippJob job;
    ascend::SourceImage src;
};

// Reads the job and makes its source; false when refused or over the budget.
inline bool aipp_prepare(const std::string& text, AippPrepared& out) {
    try {
        sim::ConfigDocument doc = sim::ConfigDocument::parse(text, "fuzz.yaml");
        out.job = ascend::read_aipp_job(doc.root().child("aipp"));
        doc.finish();
        const aipp::InputFormat f = out.job.params.format;
        const uint32_t w = out.job.raw_width, h = out.job.raw_height;
        if (w != 0 && h != 0 && w <= 256 && h <= 256) {
            std::vector<uint8_t> raw(size_t{w} * h * 4);
            for (size_t i = 0; i < raw.size(); ++i) {
                raw[i] = static_cast<uint8_t>(i * 37 + i / 251);
            }
            const size_t bytes = f == aipp::InputFormat::YUV420SP_U8 ? size_t{w} * h * 3 / 2
                                 : f == aipp::InputFormat::YUV400_U8 ? size_t{w} * h
                                 : f == aipp::InputFormat::RGB888_U8 ? size_t{w} * h * 3
                                                                     : size_t{w} * h * 4;
            raw.resize(bytes);
            out.src = ascend::from_raw(raw, f, w, h, "fuzz.yuv");
        } else {
            static std::map<aipp::InputFormat, ascend::SourceImage> scenes;
            auto it = scenes.find(f);
            if (it == scenes.end()) {
                it = scenes.emplace(f, ascend::from_rgb(sim::test_scene(240, 320), f)).first;
            }
            out.src = it->second;
        }
        aipp::LoadParams& l = out.job.load;
        if (!out.job.src_horiz_size_given) {
            l.src_horiz_size = out.src.width;
        }
        if (!aipp::check(out.job.params, l, out.src.height).empty()) {
            return false;
        }
        return aipp::geometry(out.job.params, l).elements() <= kAippTileElements;
    } catch (const sim::Error&) {
        return false;
    }
}

// The tile of a prepared job (output_bytes per element).
inline std::vector<uint8_t> aipp_tile(const AippPrepared& p) {
    const aipp::Params& params = p.job.params;
    std::vector<uint8_t> tile(aipp::geometry(params, p.job.load).elements() *
                              aipp::output_bytes(params.output));
    aipp::load_image(params, p.job.load, p.job.fidelity, p.src.view(), tile.data());
    return tile;
}

// Returns whether the job ran (its tile in `out` when given).
inline bool aipp_run(const uint8_t* data, size_t size, std::vector<uint8_t>* out = nullptr) {
    AippPrepared p;
    if (!aipp_prepare(std::string(reinterpret_cast<const char*>(data), size), p)) {
        return false;
    }
    try {
        std::vector<uint8_t> tile = aipp_tile(p);
        if (out != nullptr) {
            *out = std::move(tile);
        }
        return true;
    } catch (const sim::Error&) {
        return false;
    }
}

}  // namespace npu::fuzz
