#include "models/finn/finn_resources.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npu::finn {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

// FINN's accumulator width for the LUT model: accDataType's bits (INT32 when the node has none),
// or the data types' bound (arXiv 2301.13376) when smaller: alpha = log2(dot length) + W + A − 1
// − signed(input); ceil(alpha + log2(1 + 2^−alpha) + 1).
double acc_bits(const std::optional<DataType>& acc, uint64_t dot, unsigned w, const DataType& in) {
    const double alpha =
        std::log2(static_cast<double>(dot)) + w + in.bits() - 1 - (in.is_signed() ? 1 : 0);
    const double bound = std::ceil(alpha + std::log2(1 + std::pow(2.0, -alpha)) + 1);
    return std::min(static_cast<double>(acc ? acc->bits() : 32), bound);
}

// The multiplier, adder tree and accumulator LUTs of one PE (FINN-R): Q·(2·ceil((W+A)/6) − 1)·(W+A)
// unless multiplications go to DSPs, (W+A)·(2Q − 1), and the accumulator's bits.
double pe_luts(uint64_t q, unsigned w, unsigned a, const LayerStyle& s, double acc) {
    const double wa = static_cast<double>(w + a);
    const double mult =
        s.res_type == "dsp" ? 0 : static_cast<double>(q) * (2 * std::ceil(wa / 6) - 1) * wa;
    return mult + wa * static_cast<double>(2 * q - 1) + acc;
}

// BRAM_18K for `omega` words of `width` bits (SDP RAMB18s, UG573 Table 1-10): MVAU's steps 9, 18,
// 36 bits; VVAU's 8, 16, 32.
uint64_t brams(double omega, uint64_t width, bool vvau) {
    auto up = [](double x, double d) {
        return static_cast<uint64_t>(std::ceil(x / d));
    };
    if (width == 1) {
        return up(omega, 16384);
    }
    if (width == 2) {
        return up(omega, 8192);
    }
    if (width <= 4) {
        return up(omega, 4096) * ceil_div(width, 4);
    }
    if (width <= 9) {
        return up(omega, 2048) * ceil_div(width, vvau ? 8 : 9);
    }
    if (width <= 18 || omega > 512) {
        return up(omega, 1024) * ceil_div(width, vvau ? 16 : 18);
    }
    return up(omega, 512) * ceil_div(width, vvau ? 32 : 36);
}

uint64_t urams(const LayerStyle& s, double omega, uint64_t width) {
    if (s.mem_mode != "internal_decoupled" || s.ram_style != "ultra") {
        return 0;
    }
    return ceil_div(width, 72) * static_cast<uint64_t>(std::ceil(omega / 4096));
}

// What the LUT model needs of a weight layer: PE, SIMD, WMEM words, weight and input bits.
struct LutShape {
    uint64_t p, q, wmem;
    unsigned w, a;
};

// int(300 + 1.1·PE·(the PE's LUTs + its thresholds') + c2), c2 = PE·SIMD·W·ceil(WMEM/64) when
// the weights sit in LUTs (distributed, or embedded and at most 128 words).
uint64_t luts(const LutShape& m, const LayerStyle& s, double acc, double thr) {
    double c2 = 0;
    if ((s.mem_mode == "internal_decoupled" && s.ram_style == "distributed") ||
        (s.mem_mode == "internal_embedded" && m.wmem <= 128)) {
        c2 = static_cast<double>(m.p * m.q * m.w) * std::ceil(static_cast<double>(m.wmem) / 64);
    }
    const double pe = pe_luts(m.q, m.w, m.a, s, acc) + thr;
    return static_cast<uint64_t>(300 + 1.1 * (static_cast<double>(m.p) * pe) + c2);
}

uint64_t rtl_dsps(uint64_t pe, uint64_t simd, bool dsp58) {
    return dsp58 ? pe * ceil_div(simd, 3) : ceil_div(pe, 4) * simd;
}

}  // namespace

Resources mvau_resources(const Mvau& m, const LayerStyle& s, bool dsp58) {
    Resources r;
    const uint64_t p = m.pe, q = m.simd, wmem = uint64_t{m.mw} * m.mh / (p * q);
    const unsigned w = m.weight.bits(), a = m.in.bits();
    const double omega = static_cast<double>(m.mw) * m.mh / static_cast<double>(q * p);
    const uint64_t width = q * w * p;
    const bool no_bram = (s.mem_mode == "internal_decoupled" &&
                          (s.ram_style == "distributed" || s.ram_style == "ultra")) ||
                         (s.mem_mode == "internal_embedded" && wmem <= 128) ||
                         s.mem_mode == "external";
    r.bram_18k = no_bram ? 0 : brams(omega, width, false);
    r.uram = urams(s, omega, width);
    if (s.rtl) {  // MVAU_rtl: LUTs 0 (FINN's lut_estimation), DSPs per the part's DSP block
        r.dsp = rtl_dsps(p, q, dsp58);
        return r;
    }
    const double acc = acc_bits(m.acc, m.mw, w, m.in);
    double thr = 0;
    if (!m.thresholds.empty() && s.ram_style_thresholds == "distributed") {
        const double levels = std::pow(2.0, m.out.bits()) - 1;
        const uint64_t tmem = m.mh / p;
        thr = levels * acc * std::ceil(static_cast<double>(tmem) / 64) + levels * acc;
    }
    r.lut = luts({p, q, wmem, w, a}, s, acc, thr);
    r.dsp = s.res_type == "dsp"
                ? p * q * static_cast<uint64_t>(std::ceil(static_cast<double>(w + a) / 48))
                : 0;
    return r;
}

Resources vvau_resources(const Vvau& v, const LayerStyle& s, bool dsp58) {
    Resources r;
    const uint64_t p = v.pe, q = v.simd;
    const uint64_t wmem = uint64_t{v.k()} * v.channels / p / q;
    const unsigned w = v.weight.bits(), a = v.in.bits();
    const auto omega = static_cast<double>(wmem);
    const uint64_t width = q * w * p;
    const bool no_bram = (s.mem_mode == "internal_decoupled" &&
                          (s.ram_style == "distributed" || s.ram_style == "ultra")) ||
                         (s.ram_style == "auto" && wmem <= 128) ||
                         (s.mem_mode == "internal_embedded" && wmem <= 128) ||
                         s.mem_mode == "external";
    r.bram_18k = no_bram ? 0 : brams(omega, width, true);
    r.uram = urams(s, omega, width);
    if (s.rtl) {
        r.dsp = rtl_dsps(p, q, dsp58);
        return r;
    }
    const double acc = acc_bits(v.acc, v.k(), w, v.in);
    double thr = 0;
    if (!v.thresholds.empty()) {  // FINN's VVAU counts them whatever the threshold memory style
        const double levels = std::pow(2.0, v.out.bits()) - 1;
        const auto tmem = static_cast<double>(v.channels / p);
        thr = levels * acc * tmem / 64 + levels * acc;
    }
    r.lut = luts({p, q, wmem, w, a}, s, acc, thr);
    r.dsp = s.res_type == "dsp"
                ? p * static_cast<uint64_t>(std::ceil(static_cast<double>(w + a) / 48))
                : 0;
    return r;
}

std::string check(const LayerStyle& s) {
    auto one_of = [](const std::string& v, std::initializer_list<const char*> ok) {
        return std::any_of(ok.begin(), ok.end(), [&](const char* o) { return v == o; });
    };
    if (!one_of(s.mem_mode, {"internal_embedded", "internal_decoupled", "external"})) {
        return fmt::format(
            "mem_mode '{}': expected internal_embedded, internal_decoupled or "
            "external (or FINN's older const, decoupled)",
            s.mem_mode);
    }
    if (!one_of(s.ram_style, {"auto", "block", "distributed", "ultra"})) {
        return fmt::format("ram_style '{}': expected auto, block, distributed or ultra",
                           s.ram_style);
    }
    if (!one_of(s.res_type, {"auto", "lut", "dsp"})) {
        return fmt::format("resType '{}': expected auto, lut or dsp", s.res_type);
    }
    if (!one_of(s.ram_style_thresholds, {"auto", "block", "distributed"})) {
        return fmt::format("ram_style_thresholds '{}': expected auto, block or distributed",
                           s.ram_style_thresholds);
    }
    return "";
}

}  // namespace npu::finn
