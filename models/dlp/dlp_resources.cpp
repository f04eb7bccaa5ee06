#include "models/dlp/dlp_resources.h"

#include <cmath>

#include <fmt/format.h>

namespace npu::dlp {

namespace {

uint64_t counted(double v) {
    return !(v > 0) ? 0 : static_cast<uint64_t>(std::llround(v));
}

// The part beside the memories, in the family's unit.
double beside(double tiles, FpgaFamily f, const ResourceModel& m) {
    return f == FpgaFamily::xilinx
               ? tiles
               : tiles * static_cast<double>(kBramTileBits) * m.intel_bram_factor;
}

}  // namespace

const char* family_name(FpgaFamily f) {
    return f == FpgaFamily::xilinx ? "xilinx" : "intel";
}

uint64_t conv_lanes(const DlpConfig& cfg, uint64_t taps_per_pass) {
    return uint64_t{cfg.conv_thread_number} * taps_per_pass;
}

uint64_t memory_bram(uint64_t words, DataType t, FpgaFamily f) {
    const uint64_t bits = words * element_bytes(t) * 8;
    return f == FpgaFamily::intel ? bits : (bits + kBramTileDataBits - 1) / kBramTileDataBits;
}

uint64_t conv_memory_words(const DlpConfig& cfg) {
    auto words = [](const std::array<uint64_t, 3>& s) {
        return s[0] * s[1] * s[2];
    };
    return words(cfg.conv_input_memory_size) + words(cfg.conv_output_memory_size);
}

uint64_t fc_memory_words(const DlpConfig& cfg) {
    return cfg.fc_input_memory_size + cfg.fc_output_memory_size;
}

std::array<ResourceValues, DlpResources::kModules> resource_values(const DlpConfig& cfg,
                                                                   FpgaFamily family,
                                                                   const ResourceModel& m,
                                                                   uint64_t taps_per_pass) {
    const bool single = cfg.data_type == DataType::single;
    const double dsp_scale = family == FpgaFamily::intel ? m.intel_dsp_factor : 1.0;
    const double conv_lane = single ? m.conv_dsp_per_lane : m.int8_dsp_per_lane;
    const double fc_lane = single ? m.fc_dsp_per_lane : m.int8_dsp_per_lane;
    auto module = [&](double dsp, uint64_t memory, double tiles_beside) {
        const double bram = static_cast<double>(memory) + beside(tiles_beside, family, m);
        return ResourceValues{dsp * dsp_scale, bram, dsp * dsp_scale * m.lut_per_dsp};
    };
    return {
        module(conv_lane * static_cast<double>(conv_lanes(cfg, taps_per_pass)),
               memory_bram(conv_memory_words(cfg), cfg.data_type, family), m.conv_bram),
        module(fc_lane * cfg.fc_thread_number,
               memory_bram(fc_memory_words(cfg), cfg.data_type, family), m.fc_bram),
        module(m.adder_dsp, 0, m.adder_bram),
        module(0, 0, m.debug_bram),
        module(0, 0, m.sched_bram),
    };
}

DlpResources resources(const DlpConfig& cfg, FpgaFamily family, const ResourceModel& m,
                       uint64_t taps_per_pass) {
    const auto v = resource_values(cfg, family, m, taps_per_pass);
    DlpResources r;
    r.family = family;
    for (size_t i = 0; i < v.size(); ++i) {
        r.modules[i] = {kResourceModules[i], counted(v[i].dsp), counted(v[i].bram),
                        counted(v[i].lut)};
        r.dsp += r.modules[i].dsp, r.bram += r.modules[i].bram, r.lut += r.modules[i].lut;
    }
    return r;
}

std::string resource_table(const DlpResources& r, const FpgaDevice& d) {
    const bool bits = r.family == FpgaFamily::intel;
    auto cell = [](uint64_t used, uint64_t available) {
        if (available == 0) {
            return fmt::format("{}", used);
        }
        return fmt::format("{}({:3.0f}%)", used,
                           100.0 * static_cast<double>(used) / static_cast<double>(available));
    };
    std::string s = "Deep Learning Processor Estimator Resource Results\n\n";
    s += fmt::format("{:<24}{:>18}{:>22}{:>20}\n", "", "DSPs",
                     bits ? "Block RAM (bits)" : "Block RAM", "LUTs(CLB/ALUT)");
    s += fmt::format(
        "{:<24}{:>18}{:>22}{:>20}\n", "Available", d.dsp ? fmt::format("{}", d.dsp) : "?",
        d.bram ? fmt::format("{}", d.bram) : "?", d.lut ? fmt::format("{}", d.lut) : "?");
    s += fmt::format("{:<24}{:>18}{:>22}{:>20}\n", "DL_Processor", cell(r.dsp, d.dsp),
                     cell(r.bram, d.bram), cell(r.lut, d.lut));
    for (const ModuleResources& m : r.modules) {
        s += fmt::format("{:<24}{:>18}{:>22}{:>20}\n", "    " + std::string(m.module), m.dsp,
                         m.bram, m.lut);
    }
    if (!bits) {
        s += " * Block RAM represents 36 Kb Block RAM tiles (Xilinx)\n";
    }
    return s;
}

}  // namespace npu::dlp
