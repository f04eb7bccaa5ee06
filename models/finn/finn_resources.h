// FINN's resource estimates of the layers that hold weights, as FINN's `res_estimation` analysis
// reports them per node (estimate_layer_resources.json): LUT, BRAM_18K, URAM and DSP from the
// node's lut_estimation(), bram_estimation(), uram_estimation() and dsp_estimation() — the FINN-R
// model (Blott et al. 2018) FINN implements in matrixvectoractivation.py and
// vectorvectoractivation.py (and their _hls/_rtl backends). Other layers: FINN's estimates are
// not modelled (0 here). Pure C++; docs/finn.md, "Resources".
#pragma once

#include <cstdint>
#include <string>

#include "models/finn/finn_func.h"

namespace npu::finn {

// The attributes that choose how a weight layer is built (FINN's node attributes and their
// defaults in FINN 0.10+; FINN's older names const/decoupled read as internal_embedded and
// internal_decoupled).
struct LayerStyle {
    bool rtl = false;  // an _rtl node (DSP-based MVU/VVU)
    std::string mem_mode =
        "internal_decoupled";                   // internal_embedded | internal_decoupled | external
    std::string ram_style = "auto";             // auto | block | distributed | ultra
    std::string res_type = "auto";              // resType: auto | lut | dsp
    std::string ram_style_thresholds = "auto";  // auto | block | distributed
};

struct Resources {
    uint64_t lut = 0, bram_18k = 0, uram = 0, dsp = 0;
    Resources& operator+=(const Resources& r) {
        lut += r.lut, bram_18k += r.bram_18k, uram += r.uram, dsp += r.dsp;
        return *this;
    }
};

// `dsp58`: the part's DSP block is a DSP58 (Versal), else DSP48 (7-series, UltraScale): only the
// RTL layers' DSP count depends on it.
Resources mvau_resources(const Mvau& m, const LayerStyle& s, bool dsp58 = false);
Resources vvau_resources(const Vvau& v, const LayerStyle& s, bool dsp58 = false);

// An error message when `s` holds a value FINN does not accept ("" when valid).
std::string check(const LayerStyle& s);

}  // namespace npu::finn
