// The DL processor's whole path as a fuzz entry point: any bytes are read as a network YAML
// (`network:` as configs/networks/*.yaml), checked, given its parameters and compiled for a
// platform config; the program is then run as the processor runs it, on a DDR image: the
// instruction records decoded from their bytes and their sizes derived, and frame by frame each
// layer's inputs read from DDR, executed (the modules' one arithmetic, execute_layer) and its
// output written back. Any input gives a run or one sim::Error, never a crash, hang or other
// exception. Bounded so each input takes milliseconds (MACs, DDR image size). Used by libFuzzer
// (fuzz_dlp_run.cpp) and by the seeded mutation test in the normal suite
// (tests/platforms/dlp/test_dlp_mutations.cpp), which also runs the first mutants on the timed
// platform and compares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_compiler.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::fuzz {

constexpr uint64_t kDlpMacs = uint64_t{1} << 21, kDlpDdrBytes = uint64_t{64} << 20;

// A network read and compiled for `cfg` (what DlpFace::run does before it simulates).
struct DlpCompiled {
    dlp::NetworkFile file;
    dlp::Program program;
};

// Reads and compiles the YAML text; false when it is refused (sim::Error) or over the budget.
inline bool dlp_compile(const std::string& text, const dlp::DlpPlatformConfig& cfg,
                        DlpCompiled& out) {
    try {
        sim::ConfigDocument doc = sim::ConfigDocument::parse(text, "fuzz.yaml");
        out.file = dlp::read_network(doc.root().child("network"));
        doc.finish();
        dlp::check_network(out.file.network, cfg.dlp);
        // Work: every layer's MACs (an adder's: one per output element) and output elements.
        uint64_t work = 0;
        for (const dlp::Layer& l : out.file.network.layers) {
            const auto outs = static_cast<uint64_t>(l.out.z * l.out.h * l.out.w);
            work += outs + (l.kind == dlp::LayerKind::conv ? l.conv.macs()
                            : l.kind == dlp::LayerKind::fc ? outs * static_cast<uint64_t>(l.fc.in)
                                                           : outs);
            if (work > kDlpMacs || out.file.frames > kDlpMacs / work) {
                return false;
            }
        }
        dlp::fill_parameters(out.file.network, cfg.dlp, out.file.seed);
        dlp::CompileOptions co;
        co.ddr_base_addr = cfg.ddr_base_addr;
        co.frames = out.file.frames;
        out.program = dlp::compile(out.file.network, cfg.dlp, co);
        return out.program.end_addr - cfg.ddr_base_addr <= kDlpDdrBytes;
    } catch (const sim::Error&) {
        return false;
    }
}

// Runs a compiled program on a DDR image as the processor does, frames one after another; the
// result image of each frame (the output region's bytes). Throws sim::Error as the processor's
// error status would report it.
inline std::vector<std::vector<uint8_t>> dlp_execute(const dlp::Program& p,
                                                     const dlp::DlpConfig& cfg, uint64_t base,
                                                     const std::vector<std::vector<uint8_t>>& in) {
    std::vector<uint8_t> ddr(p.end_addr - base, 0);
    auto at = [&](uint64_t addr, uint64_t n) -> uint8_t* {
        if (n == 0) {
            return ddr.data();  // nothing is read (an unused operand's address may be 0)
        }
        if (addr < base || addr - base > ddr.size() || n > ddr.size() - (addr - base)) {
            throw sim::Error(fmt::format("{} bytes at {:#x}: outside DDR", n, addr));
        }
        return ddr.data() + (addr - base);
    };
    auto put = [&](uint64_t addr, const std::vector<uint8_t>& b) {
        if (!b.empty()) {
            std::memcpy(at(addr, b.size()), b.data(), b.size());
        }
    };
    put(p.instruction_addr, p.instructions);
    put(p.conv_weight_addr, p.conv_weights);
    put(p.fc_weight_addr, p.fc_weights);
    for (size_t f = 0; f < in.size(); ++f) {
        put(p.input_addr + f * p.input_frame_bytes, in[f]);
    }
    std::vector<dlp::Record> records(p.instructions.size() / dlp::kRecordBytes);
    if (records.empty()) {
        throw sim::Error("no layer records");
    }
    for (size_t i = 0; i < records.size(); ++i) {
        std::string why = dlp::decode(p.instructions.data() + i * dlp::kRecordBytes, records[i]);
        if (why.empty()) {
            why = dlp::derive_sizes(records[i], cfg, uint64_t{1} << 30);
        }
        if (!why.empty()) {
            throw sim::Error(fmt::format("layer {}: {}", i, why));
        }
    }
    // Record addresses point at frame 0; the input and result regions advance by a frame each.
    auto adjust = [&](uint64_t a, uint64_t f) {
        if (a >= p.input_addr && a < p.input_addr + p.input_frame_bytes) {
            return a + f * p.input_frame_bytes;
        }
        if (a >= p.output_addr && a < p.output_addr + p.output_frame_bytes) {
            return a + f * p.output_frame_bytes;
        }
        return a;
    };
    std::vector<std::vector<uint8_t>> results;
    for (uint64_t f = 0; f < in.size(); ++f) {
        for (const dlp::Record& r : records) {
            const dlp::LayerPlacement& pl = r.place;
            const uint8_t* x = at(adjust(pl.input_addr, f), pl.input_bytes);
            const uint8_t* x2 = at(adjust(pl.input2_addr, f), pl.input2_bytes);
            const std::vector<uint8_t> y = dlp::execute_layer(
                r, cfg,
                {x, x2, at(pl.weight_addr, pl.weight_bytes), at(pl.bias_addr, pl.bias_bytes)});
            put(adjust(pl.output_addr, f), y);
        }
        // The result image (its frame slot is 64-byte aligned, the image may be shorter).
        const uint64_t n = dlp::image_bytes(records.back().layer, cfg);
        const uint8_t* o = at(p.output_addr + f * p.output_frame_bytes, n);
        results.emplace_back(o, o + n);
    }
    return results;
}

// Zero input images of the network's input (conv format), one per frame.
inline std::vector<std::vector<uint8_t>> dlp_zero_inputs(const DlpCompiled& c,
                                                         const dlp::DlpConfig& cfg) {
    const dlp::ActShape& s = c.file.network.input;
    const auto n = static_cast<size_t>(s.z * s.h * s.w);
    std::vector<std::vector<uint8_t>> in;
    for (uint32_t f = 0; f < c.file.frames; ++f) {
        in.push_back(cfg.data_type == dlp::DataType::single
                         ? dlp::format_activation(std::vector<float>(n, 0.25f), s, cfg)
                         : dlp::format_activation(std::vector<int8_t>(n, 17), s, cfg));
    }
    return in;
}

// Returns whether the network compiled and ran on `cfg` (its results in `out` when given).
inline bool dlp_run(const uint8_t* data, size_t size, const dlp::DlpPlatformConfig& cfg,
                    std::vector<std::vector<uint8_t>>* out = nullptr) {
    DlpCompiled c;
    if (!dlp_compile(std::string(reinterpret_cast<const char*>(data), size), cfg, c)) {
        return false;
    }
    try {
        std::vector<std::vector<uint8_t>> r =
            dlp_execute(c.program, cfg.dlp, cfg.ddr_base_addr, dlp_zero_inputs(c, cfg.dlp));
        if (out != nullptr) {
            *out = std::move(r);
        }
        return true;
    } catch (const sim::Error&) {
        return false;
    }
}

}  // namespace npu::fuzz
