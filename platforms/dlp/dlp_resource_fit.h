// The DL processor's resource constants (models/dlp/dlp_resources.h) fitted to dlhdl's published
// figures (platforms/dlp/data/dlhdl_resources.yaml), every figure also predicted by a fit that
// did not see it (leave-one-out). Each constant from the figures that identify it:
// - a Xilinx configuration's module rows: the conv and fc modules' DSPs per MAC lane, the adder's
//   DSPs, each module's block RAM beside its memories (the row less its memories' tiles);
// - where a module's row is missing, a Xilinx DL_Processor row less the other modules (at
//   least 0);
// - LUTs per DSP: the DL_Processor rows' LUTs over their DSPs (Xilinx; without one, Intel's);
// - Intel's DSP and block RAM factors: its DL_Processor rows against the Xilinx model of the same
//   configuration (without one: 1, the same processor on either family).
// A constant no figure identifies is NaN, and so is what it predicts. Pure C++; docs/dlp.md
// "Resources", scripts/dlp-fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/dlp/dlp_resources.h"

namespace npu::dlp {

struct ResourceFigure {
    std::string config;  // the configuration's name
    FpgaFamily family = FpgaFamily::xilinx;
    DlpConfig dlp;
    std::string module;  // one of kResourceModules, or "DL_Processor"
    std::optional<double> dsp, bram, lut;
};

// Reads the figures file (its `configurations:`); errors name the file and line.
std::vector<ResourceFigure> read_resource_figures(const std::string& path);

ResourceModel fit_resources(const std::vector<ResourceFigure>& figures, uint64_t taps_per_pass);

// A figure's DSP, block RAM and LUT by the model (NaN where a constant is unknown).
ResourceValues predict(const ResourceFigure& f, const ResourceModel& m, uint64_t taps_per_pass);

struct ResourceFitReport {
    ResourceModel fitted;
    std::string markdown;       // the tables of docs/dlp.md between its dlp-resources markers
    bool shipped_match = true;  // ResourceModel's defaults equal the fit (as printed)
    std::string mismatch;
};

ResourceFitReport resource_fit_report(const std::vector<ResourceFigure>& figures,
                                      uint64_t taps_per_pass);

}  // namespace npu::dlp
