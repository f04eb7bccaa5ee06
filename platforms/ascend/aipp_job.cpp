#include "platforms/ascend/aipp_job.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "sim/core/tensor.h"

namespace npu::ascend {

namespace {

using aipp::OutputType;

// A value of the output type U: uint8 0..255, int8 −128..127 (stored as its byte), half any
// finite number (stored as binary16 bits).
uint16_t value_of_u(const sim::ConfigNode& n, const std::string& key, OutputType t,
                    uint16_t fallback) {
    switch (t) {
    case OutputType::u8: return n.get<uint16_t>(key, fallback, 0, 255);
    case OutputType::i8:
        return static_cast<uint8_t>(
            n.get<int16_t>(key, static_cast<int16_t>(static_cast<int8_t>(fallback)), -128, 127));
    case OutputType::f16: {
        const double v = n.get<double>(key, static_cast<double>(sim::half_to_float(fallback)),
                                       -65504.0, 65504.0);
        return sim::double_to_half(v);
    }
    }
    return fallback;
}

uint16_t half_param(const sim::ConfigNode& n, const std::string& key, uint16_t fallback) {
    return sim::double_to_half(
        n.get<double>(key, static_cast<double>(sim::half_to_float(fallback)), -65504.0, 65504.0));
}

void read_params(const sim::ConfigNode& a, aipp::Params& p) {
    if (auto n = a.optional_child("paddingParams")) {
        p.padding_mode = n->get<uint32_t>("paddingMode", 0);
        for (size_t k = 0; k < 4; ++k) {
            p.padding_value[k] = value_of_u(*n, fmt::format("paddingValueCh{}", k), p.output, 0);
        }
    }
    if (auto n = a.optional_child("swapParams")) {
        p.swap_rb = n->get<bool>("isSwapRB", false);
        p.swap_uv = n->get<bool>("isSwapUV", false);
        p.swap_ax = n->get<bool>("isSwapAX", false);
    }
    if (auto n = a.optional_child("singleLineParams")) {
        p.single_line = n->get<bool>("isSingleLineCopy", false);
    }
    if (auto n = a.optional_child("dtcParams")) {
        for (size_t k = 0; k < 3; ++k) {
            p.dtc_mean[k] = n->get<uint8_t>(fmt::format("dtcMeanCh{}", k), 0);
            p.dtc_min[k] = half_param(*n, fmt::format("dtcMinCh{}", k), p.dtc_min[k]);
            p.dtc_var[k] = half_param(*n, fmt::format("dtcVarCh{}", k), p.dtc_var[k]);
        }
        p.dtc_round_mode = n->get<uint32_t>("dtcRoundMode", 0);
    }
    if (auto n = a.optional_child("cPaddingParams")) {
        p.c_padding_mode = n->get<uint32_t>("cPaddingMode", 0);
        p.c_padding_value = value_of_u(*n, "cPaddingValue", p.output, 0);
    }
    if (auto n = a.optional_child("cscParams")) {
        p.csc_enable = n->get<bool>("isEnableCsc", false);
        for (size_t r = 0; r < 3; ++r) {
            for (size_t c = 0; c < 3; ++c) {
                p.csc_matrix[3 * r + c] = n->get<int16_t>(fmt::format("cscMatrixR{}C{}", r, c), 0);
            }
        }
        for (size_t k = 0; k < 3; ++k) {
            p.csc_bias_in[k] = n->get<uint8_t>(fmt::format("cscBiasIn{}", k), 0);
            p.csc_bias_out[k] = n->get<uint8_t>(fmt::format("cscBiasOut{}", k), 0);
        }
    }
}

}  // namespace

AippJob read_aipp_job(const sim::ConfigNode& a) {
    AippJob j;
    aipp::Params& p = j.params;
    p.format = a.get_enum<aipp::InputFormat>("format", aipp::InputFormat::RGB888_U8,
                                             {{"YUV420SP_U8", aipp::InputFormat::YUV420SP_U8},
                                              {"XRGB8888_U8", aipp::InputFormat::XRGB8888_U8},
                                              {"RGB888_U8", aipp::InputFormat::RGB888_U8},
                                              {"YUV400_U8", aipp::InputFormat::YUV400_U8}});
    p.output = a.get_enum<OutputType>(
        "output", OutputType::u8,
        {{"uint8", OutputType::u8}, {"int8", OutputType::i8}, {"half", OutputType::f16}});
    if (auto params = a.optional_child("params")) {
        read_params(*params, p);
    }
    if (auto n = a.optional_child("load")) {
        aipp::LoadParams& l = j.load;
        l.horiz_size = n->get<uint32_t>("horizSize");
        l.vert_size = n->get<uint32_t>("vertSize");
        l.horiz_start = n->get<uint32_t>("horizStartPos", 0);
        l.vert_start = n->get<uint32_t>("vertStartPos", 0);
        j.src_horiz_size_given = n->has("srcHorizSize");
        l.src_horiz_size = n->get<uint32_t>("srcHorizSize", 0);
        l.top_pad = n->get<uint32_t>("topPadSize", 0);
        l.bot_pad = n->get<uint32_t>("botPadSize", 0);
        l.left_pad = n->get<uint32_t>("leftPadSize", 0);
        l.right_pad = n->get<uint32_t>("rightPadSize", 0);
        l.sid = n->get<uint32_t>("sid", 0);
    } else {
        a.error_at("load", "missing: LoadImageToLocal's parameters (horizSize, vertSize, ...)");
    }
    if (auto n = a.optional_child("source")) {
        j.raw_width = n->get<uint32_t>("width", 0, 2, 4095);
        j.raw_height = n->get<uint32_t>("height", 0, 1, 8192);
    }
    if (auto n = a.optional_child("fidelity")) {
        aipp::Fidelity& f = j.fidelity;
        f.csc_round_add_128 =
            n->get_enum<bool>("csc_rounding", true, {{"add128", true}, {"shift", false}});
        f.saturate = n->get<bool>("saturate", false);
        f.bias_roles_as_labelled =
            n->get_enum<bool>("bias_roles", false, {{"model", false}, {"labelled", true}});
        f.yuv400_chroma = n->get<uint8_t>("yuv400_chroma", 0);
    }
    if (auto n = a.optional_child("timing")) {
        aipp::AippTiming& t = j.timing;
        t.clock_hz = n->get_hz("clock_hz", t.clock_hz);
        t.gm_bus.clock_hz = t.l1_bus.clock_hz = t.clock_hz;  // unless a bus says otherwise
        if (auto bus = n->optional_child("gm_bus")) {
            t.gm_bus = sim::read_bus_config(*bus, t.gm_bus);
        }
        if (auto bus = n->optional_child("l1_bus")) {
            t.l1_bus = sim::read_bus_config(*bus, t.l1_bus);
        }
        t.start_cycles = n->get<uint64_t>("start_cycles", t.start_cycles, 0u, 1u << 30);
        t.row_overhead_cycles =
            n->get<uint64_t>("row_overhead_cycles", t.row_overhead_cycles, 0u, 1u << 20);
    }
    return j;
}

}  // namespace npu::ascend
