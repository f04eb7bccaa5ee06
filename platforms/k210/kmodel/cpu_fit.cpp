#include "platforms/k210/kmodel/cpu_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::k210 {

namespace {

// Every kernel the calibration firmware measures and what its measurement is for
// (firmware/k210-cpu-kernels/main.c runs them; docs/k210_cpu_ops.md gives each op's elements).
struct KernelInfo {
    const char* name;
    KernelUse use;
    const char* what;
    bool per_mac = false;  // its unit is a MAC (its constant: per MAC, not per element)
};
constexpr KernelInfo kKernels[] = {
    {"dequantize", KernelUse::Board, "nncase `riscv_dequantize` (two elements a turn); nncase#95"},
    {"DEQUANTIZE", KernelUse::Board, "kpu.c `kpu_kmodel_dequantize`; nncase#77 layer 23"},
    {"quantized_binary", KernelUse::Board, "nncase `quantized_binary`, add; nncase#97"},
    {"quantize", KernelUse::Scaled, "nncase `riscv_quantize`"},
    {"binary", KernelUse::Scaled, "nncase `binary`: f32 add, one shape"},
    {"transpose", KernelUse::Scaled, "nncase `transpose`: u8 NCHW → NHWC"},
    {"transpose_f32", KernelUse::Shown, "the same, f32"},
    {"concat", KernelUse::Scaled, "nncase `concat`: two f32 maps along C (`std::copy`)"},
    {"pad", KernelUse::Scaled, "nncase `pad`: u8, one each side of H and W"},
    {"memory_copy", KernelUse::Scaled, "nncase's `memory_copy`: f32 `std::copy`"},
    {"resize_image", KernelUse::Scaled, "nncase `resize_nearest_neighbor`: u8, 2x"},
    {"resize_bilinear", KernelUse::Shown, "nncase `resize_bilinear`: f32, 2x"},
    {"softmax", KernelUse::Scaled, "nncase `softmax`: blocks of 2 (a detector's classes)"},
    {"unary", KernelUse::Scaled, "nncase `unary`: `expf`"},
    {"reduce_window2d", KernelUse::Scaled, "nncase `reduce_window2d`: max 2x2 stride 2"},
    {"reduce", KernelUse::Scaled, "nncase `reduce` + `unary`: mean over H and W"},
    {"strided_slice", KernelUse::Scaled, "nncase `strided_slice`: u8, stride 2 in W"},
    {"table_lookup1d", KernelUse::Scaled, "nncase `table_lookup1d`: u8"},
    {"matmul", KernelUse::Scaled, "nncase `matmul`: 1 row, 20 columns out", true},
    {"conv2d", KernelUse::Scaled,
     "nncase `conv2d`: f32 3x3, 4 → 4 channels (the generic `cycles_per_mac`)", true},
    {"kpu_upload", KernelUse::Shown, "nncase `kpu_upload` into uncached KPU RAM"},
    {"kpu_download", KernelUse::Shown, "nncase `kpu_download` from uncached KPU RAM"},
    {"kpu_download_w64", KernelUse::Shown,
     "the same, maps 64 wide: its `std::copy` path (charged as the byte loop)"},
    {"QUANTIZE", KernelUse::Scaled, "kpu.c `kpu_quantize`"},
    {"QUANTIZED_ADD", KernelUse::Scaled, "kpu.c `kpu_quantized_add`"},
    {"K210_UPLOAD", KernelUse::Measured, "kpu.c `kpu_upload` into uncached KPU RAM"},
    {"ADD", KernelUse::Scaled, "kpu.c `kpu_kmodel_add`"},
    {"GLOBAL_AVERAGE_POOL2D", KernelUse::Scaled, "kpu.c `kpu_global_average_pool2d`"},
    {"REQUANTIZE", KernelUse::Scaled, "kpu.c `kpu_requantize`"},
    {"SOFTMAX", KernelUse::Scaled, "kpu.c `kpu_softmax`"},
    {"CONCAT", KernelUse::Scaled, "kpu.c `kpu_concat` (`memcpy`)"},
    {"TENSORFLOW_FLATTEN", KernelUse::Scaled, "kpu.c `kpu_tf_flatten`"},
    {"RESIZE_NEAREST_NEIGHBOR", KernelUse::Scaled, "kpu.c `kpu_resize_nearest_neighbor`, 2x"},
    {"QUANTIZED_RESIZE_NEAREST_NEIGHBOR", KernelUse::Scaled,
     "kpu.c `kpu_quant_resize_nearest_neighbor`, 2x"},
    {"LOGISTIC", KernelUse::Scaled, "kpu.c `kpu_logistic`"},
    {"K210_REMOVE_PADDING", KernelUse::Scaled, "kpu.c `kpu_remove_padding`"},
    {"FULLY_CONNECTED", KernelUse::Scaled,
     "kpu.c `kpu_kmodel_fully_connected`: 20 outputs (copies its weights every call)", true},
};

// y = a + b·x by least squares.
void line_fit(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b) {
    const double n = static_cast<double>(x.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    }
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    a = (sy - b * sx) / n;
}

void fit(KernelMeasure& k) {
    double ai = 0;
    line_fit(k.elements, k.cycles, k.fixed, k.per_element);
    line_fit(k.elements, k.instructions, ai, k.instructions_per_element);
    for (size_t i = 0; i < k.elements.size(); ++i) {
        const double f = k.fixed + k.per_element * k.elements[i];
        k.worst_residual = std::max(k.worst_residual, std::abs(k.cycles[i] / f - 1));
    }
}

double round3(double v) {
    return std::round(v * 1000) / 1000;
}

double shipped_of(const CpuModel& m, const std::string& name, bool per_mac) {
    if (name == "kpu_download") {
        return m.kpu_readback_cycles_per_byte;
    }
    if (per_mac) {  // nncase's conv2d stands for every op without a MAC constant of its own
        return name == "conv2d" ? m.cycles_per_mac : m.mac_cycles(name);
    }
    const auto it = m.op_cycles_per_element.find(name);
    return it == m.op_cycles_per_element.end() ? 0 : it->second;
}

// The geometric mean of board / hart over the Board rows, and each row's leave-one-out scale.
void fit_scale(CpuFitReport& r) {
    double sum = 0;
    size_t n = 0;
    for (const KernelRow& k : r.rows) {
        if (k.use == KernelUse::Board) {
            sum += std::log(k.board / k.m.per_element), ++n;
        }
    }
    if (n < 2) {
        throw sim::Error("the CPU fit needs at least two kernels with board figures");
    }
    r.scale = std::exp(sum / static_cast<double>(n));
    r.scale_min = r.scale_max = r.scale;
    for (KernelRow& k : r.rows) {
        if (k.use == KernelUse::Board) {
            const double own = std::log(k.board / k.m.per_element);
            k.loo_ratio = std::exp((sum - own) / static_cast<double>(n - 1));
            r.scale_min = std::min(r.scale_min, k.loo_ratio);
            r.scale_max = std::max(r.scale_max, k.loo_ratio);
        }
    }
}

std::string board_table(const CpuFitReport& r) {
    std::string s = fmt::format(
        "Board cycles per hart cycle: **s = {:.3f}** (the geometric mean of board / hart over the "
        "kernels boards have timed; over the leave-one-out fits {:.3f} – {:.3f}).\n\n"
        "| kernel | board cycles/element | hart cycles/element (instructions) | board / hart | "
        "s without it | predicted without it | error |\n|---|---|---|---|---|---|---|\n",
        r.scale, r.scale_min, r.scale_max);
    for (const KernelRow& k : r.rows) {
        if (k.use != KernelUse::Board) {
            continue;
        }
        const double pred = k.loo_ratio * k.m.per_element;
        s += fmt::format(
            "| `{}`: {} | {:.3f} | {:.2f} ({:.2f}) | {:.3f} | {:.3f} | {:.3f} | "
            "{:+.1f} % |\n",
            k.m.name, k.what, k.board, k.m.per_element, k.m.instructions_per_element,
            k.board / k.m.per_element, k.loo_ratio, pred, (pred / k.board - 1) * 100);
    }
    return s;
}

std::string constant_text(const KernelRow& k) {
    switch (k.use) {
    case KernelUse::Board: return fmt::format("{:.3f} (board)", k.board);
    case KernelUse::Scaled: return fmt::format("**{:.3f}** (× s)", k.constant);
    case KernelUse::Measured: return fmt::format("**{:.3f}** (as measured: uncached)", k.constant);
    case KernelUse::Shown: break;
    }
    return k.shipped > 0 ? fmt::format("{:.3f} (board, not from this fit)", k.shipped) : "—";
}

std::string kernel_table(const CpuFitReport& r) {
    std::string s =
        "| op | kernel measured | instructions/unit | hart cycles/unit | per call | "
        "constant (cycles/unit) |\n|---|---|---|---|---|---|\n";
    for (const KernelRow& k : r.rows) {
        s += fmt::format("| `{}`{} | {} | {:.2f} | {:.2f} | {:.0f} | {} |\n", k.m.name,
                         k.per_mac ? " per MAC" : "", k.what, k.m.instructions_per_element,
                         k.m.per_element, k.m.fixed, constant_text(k));
    }
    return s;
}

}  // namespace

std::vector<KernelMeasure> parse_kernel_lines(const std::string& text, const std::string& source) {
    std::map<std::string, KernelMeasure> by_name;
    std::vector<std::string> order;
    std::istringstream in(text);
    std::string line;
    for (int no = 1; std::getline(in, line); ++no) {
        if (line.rfind("kernel ", 0) != 0) {
            continue;
        }
        std::istringstream words(line.substr(7));
        std::string name;
        double e = 0, c = 0, i = 0;
        std::string rest;
        if (!(words >> name >> e >> c >> i) || (words >> rest) || e <= 0 || c <= 0 || i <= 0) {
            throw sim::Error(fmt::format(
                "{}:{}: not \"kernel NAME ELEMENTS CYCLES INSTRUCTIONS\" (positive numbers): {}",
                source, no, line.substr(0, 120)));
        }
        KernelMeasure& k = by_name[name];
        if (k.name.empty()) {
            k.name = name, order.push_back(name);
        }
        k.elements.push_back(e), k.cycles.push_back(c), k.instructions.push_back(i);
    }
    std::vector<KernelMeasure> out;
    for (const std::string& name : order) {
        KernelMeasure& k = by_name[name];
        const auto [lo, hi] = std::minmax_element(k.elements.begin(), k.elements.end());
        if (k.elements.size() < 2 || *lo == *hi) {
            throw sim::Error(
                fmt::format("{}: kernel {} is measured at fewer than two sizes", source, name));
        }
        fit(k);
        out.push_back(std::move(k));
    }
    return out;
}

CpuFitReport cpu_fit_report(const std::vector<KernelMeasure>& measures, const CpuModel& shipped) {
    CpuFitReport r;
    for (const KernelInfo& info : kKernels) {
        const auto it = std::find_if(measures.begin(), measures.end(),
                                     [&](const KernelMeasure& m) { return m.name == info.name; });
        if (it == measures.end()) {
            throw sim::Error(fmt::format("the measurements have no kernel {}", info.name));
        }
        KernelRow k{*it, info.use, info.what, info.per_mac};
        k.shipped = shipped_of(shipped, k.m.name, info.per_mac);
        k.board = info.use == KernelUse::Board ? k.shipped : 0;
        r.rows.push_back(std::move(k));
    }
    for (const KernelMeasure& m : measures) {
        if (std::none_of(std::begin(kKernels), std::end(kKernels),
                         [&](const KernelInfo& info) { return m.name == info.name; })) {
            throw sim::Error(
                fmt::format("kernel {} is measured but has no row in the fit's table "
                            "(platforms/k210/kmodel/cpu_fit.cpp)",
                            m.name));
        }
    }
    fit_scale(r);
    r.shipped_match = true;
    for (KernelRow& k : r.rows) {
        if (k.use == KernelUse::Scaled || k.use == KernelUse::Measured) {
            k.constant = round3(k.m.per_element * (k.use == KernelUse::Scaled ? r.scale : 1.0));
            r.shipped_match = r.shipped_match && std::abs(k.shipped - k.constant) < 5e-4;
        }
    }
    r.markdown = board_table(r) + "\n" + kernel_table(r);
    return r;
}

}  // namespace npu::k210
