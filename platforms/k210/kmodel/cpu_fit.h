// The CPU time model's per-op constants from the vendor runtimes' own kernels: nncase v0.2's and
// the SDK kpu.c's CPU kernels run on the virtual K210's hart (firmware/k210-cpu-kernels), their
// cycles per element fitted over three sizes, and scaled by one factor that maps the hart's cycles
// to a board's, fitted on the kernels boards have timed, with leave-one-out errors. Printed as the
// Markdown tables of docs/k210_platform.md "CPU kernels on the hart"; `scripts/k210-cpu-fit`
// runs it and a test checks the doc and the shipped constants against it. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "platforms/k210/kmodel/cpu_model.h"

namespace npu::k210 {

// One kernel measured on the hart: cycles = fixed + per_element · elements (least squares over
// its sizes), instructions likewise.
struct KernelMeasure {
    std::string name;  // the op's name in the op table (docs/k210_cpu_ops.md), or an extra
    std::vector<double> elements, cycles, instructions;
    double per_element = 0, fixed = 0, instructions_per_element = 0;
    double worst_residual = 0;  // the largest |measured / fitted − 1| over its sizes
};

// How a kernel's measurement becomes the op's constant.
enum class KernelUse {
    Board,     // the op's constant is a board figure's (the scale's fit uses it)
    Scaled,    // the constant is per_element · the scale
    Measured,  // the constant is per_element as measured: its cost is mostly uncached accesses,
               // whose cycles are the boards' already (docs/firmware.md "Time")
    Shown,     // only shown (another variant of an op, or a board-fitted constant's check)
};

struct KernelRow {
    KernelMeasure m;
    KernelUse use = KernelUse::Shown;
    const char* what = "";
    bool per_mac = false;  // the unit is a MAC: the constant is cpu.cycles_per_mac (conv2d) or
                           // cpu.op_cycles_per_mac.<op>
    double board = 0;      // Board: the shipped (board-fitted) constant
    double loo_ratio = 0;  // Board: the scale fitted without this row
    double constant = 0;   // Scaled / Measured: the constant the fit gives (3 decimals)
    double shipped = 0;    // the platform's constant for the op (0: none of its own)
};

struct CpuFitReport {
    std::vector<KernelRow> rows;
    double scale = 0;                     // board cycles per hart cycle (geometric mean)
    double scale_min = 0, scale_max = 0;  // over the leave-one-out fits
    bool shipped_match = false;           // every Scaled/Measured constant is the shipped one
    std::string markdown;
};

// Parses the firmware's "kernel NAME ELEMENTS CYCLES INSTRUCTIONS" lines (other lines are
// skipped); `source` names the text in messages. Throws sim::Error naming the line of a
// malformed one, or a kernel measured at fewer than two sizes.
std::vector<KernelMeasure> parse_kernel_lines(const std::string& text, const std::string& source);

// The fit against `shipped` (the platform's CPU model: its board constants and its per-op ones).
CpuFitReport cpu_fit_report(const std::vector<KernelMeasure>& measures, const CpuModel& shipped);

}  // namespace npu::k210
