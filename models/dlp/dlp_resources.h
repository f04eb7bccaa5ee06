// FPGA resources of a DL processor configuration — DSP blocks, block RAM, LUTs — per module as
// dlhdl's resource estimator prints them (conv_module, fc_module, adder_module, debug_module,
// sched_module). Each module's multipliers scale with its multiply-accumulate lanes (conv:
// ConvThreadNumber × taps per pass; fc: FCThreadNumber), its block RAM is its memories' bits
// plus a part beside them, and LUTs follow the DSPs. The constants are fitted to
// ../shared/reference/dlhdl_published_figures.md §2 (platforms/dlp/dlp_resource_fit.h,
// scripts/dlp-fit; formulas and leave-one-out errors in docs/dlp.md "Resources"). Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "models/dlp/dlp_config.h"

namespace npu::dlp {

// Block RAM is counted as Xilinx reports it (36 Kb tiles) or Intel (bits).
enum class FpgaFamily { xilinx, intel };
const char* family_name(FpgaFamily f);

struct FpgaDevice {
    std::string part;  // e.g. "xczu9eg-ffvb1156-2-e"
    FpgaFamily family = FpgaFamily::xilinx;
    // Available on the device (0: not known): DSP blocks, block RAM (tiles or bits), LUTs (CLB
    // LUTs or ALUTs).
    uint64_t dsp = 0, bram = 0, lut = 0;
};

// The fitted constants (shipped values; the fit recomputes them and a test compares).
struct ResourceModel {
    double conv_dsp_per_lane = 2.3819;  // single-precision MAC lane of the conv module
    double fc_dsp_per_lane = 4.25;      // of the fc module
    double adder_dsp = 8;               // the adder module (no thread parameter)
    // Block RAM tiles beside the module memories (Xilinx).
    double conv_bram = 179, fc_bram = 5, adder_bram = 6, debug_bram = 2, sched_bram = 1;
    double lut_per_dsp = 621.1538;      // LUTs per DSP block
    double intel_dsp_factor = 2.0858;   // Intel DSP blocks per Xilinx DSP of the same processor
    double intel_bram_factor = 2.2979;  // the part beside the memories, Intel bits per Xilinx bit
    // Assumed (no published int8 figure): an int8 MAC lane takes one DSP block (a DSP48E2 or an
    // Intel variable-precision block multiplies 8 by 8 bits and accumulates in one).
    double int8_dsp_per_lane = 1;
};

// The bits of data a 36 Kb Xilinx block RAM tile holds (its 4 Kb of parity unused by the
// processor's 8- and 32-bit words: 1024 x 32 or 4096 x 8). Derivation: Xilinx UG573.
constexpr uint64_t kBramTileDataBits = 32768;
constexpr uint64_t kBramTileBits = 36864;

struct ModuleResources {
    const char* module = "";
    uint64_t dsp = 0, bram = 0, lut = 0;
};

// The modules in dlhdl's resource table, in its order.
inline constexpr std::array<const char*, 5> kResourceModules = {
    "conv_module", "fc_module", "adder_module", "debug_module", "sched_module"};

struct DlpResources {
    FpgaFamily family = FpgaFamily::xilinx;
    static constexpr size_t kModules = kResourceModules.size();
    std::array<ModuleResources, kModules> modules;  // kResourceModules' order
    uint64_t dsp = 0, bram = 0, lut = 0;            // the processor (the modules' sums)
};

// The MAC lanes of the conv module (ConvThreadNumber × taps_per_pass) and of the fc module.
uint64_t conv_lanes(const DlpConfig& cfg, uint64_t taps_per_pass);
// The block RAM of `words` elements of the configuration's data type: tiles or bits.
uint64_t memory_bram(uint64_t words, DataType t, FpgaFamily f);
uint64_t conv_memory_words(const DlpConfig& cfg);  // the conv module's input + output memory
uint64_t fc_memory_words(const DlpConfig& cfg);

// Each module's DSP, block RAM and LUT unrounded (a constant that is NaN gives NaN: the fit's
// unknowns), in DlpResources::modules' order.
struct ResourceValues {
    double dsp = 0, bram = 0, lut = 0;
};
std::array<ResourceValues, DlpResources::kModules> resource_values(const DlpConfig& cfg,
                                                                   FpgaFamily family,
                                                                   const ResourceModel& m,
                                                                   uint64_t taps_per_pass);
// The values rounded to whole blocks, tiles, bits and LUTs, and their sums.
DlpResources resources(const DlpConfig& cfg, FpgaFamily family, const ResourceModel& m,
                       uint64_t taps_per_pass);

// "DSP 377 (15 %)" style table of the modules and the processor against the device.
std::string resource_table(const DlpResources& r, const FpgaDevice& d);

}  // namespace npu::dlp
