#include "platforms/k210/compiler/compiler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::k210 {

namespace lowering {

std::string shape_str(const Shape& s) {
    return fmt::format("{}", fmt::join(s, "x"));
}

int64_t numel(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) {
        n *= d;
    }
    return n;
}

Lowering::Lowering(const onnx::Graph& g, const CompileOptions& o, bool v4, Calibration& cal)
    : m_g(g)
    , m_o(o)
    , m_cal(cal)
    , m_ranges(cal.ranges)
    , m_shapes(cal.shapes)
    , m_v4(v4) {
}

CompiledModel Lowering::run() {
    check_io();
    calibrate();
    fold_constants();
    index_consumers();
    start();
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        if (m_done.count(i) == 0) {
            m_current = i;
            node(i);
        }
        release_dead(i);
    }
    finish();
    return std::move(m_out);
}

}  // namespace lowering

using lowering::shape_str;

namespace {

// Every CPU layer's estimate is what the timed driver charges for it (CpuModel: dispatch + the
// kmodel op's work units and MACs), counted by running the written kmodel once on the
// functional K210 with a zero input, so the compile report and the run cannot disagree.
CompiledModel charge_cpu_layers(CompiledModel m) {
    const Kmodel km = parse_kmodel(m.kmodel, "the compiled kmodel");
    sim::Tensor in(sim::DType::u8, sim::Shape(m.input_shape.begin(), m.input_shape.end()));
    const FunctionalResult r = run_functional(km, in);
    const CpuModel cpu;
    for (CompiledLayer& l : m.layers) {
        const auto i = static_cast<size_t>(l.kmodel_layer);
        if (l.target == "CPU" && l.kmodel_layer >= 0 && i < r.layers.size()) {
            l.est_cycles = cpu.layer_dispatch_cycles + cpu.layer_work_cycles(km.layers[i].type_name,
                                                                             r.layers[i].elements,
                                                                             r.layers[i].cpu_macs);
        }
    }
    return m;
}

}  // namespace

CompiledModel compile_k210(const onnx::Graph& g, const CompileOptions& opts) {
    if (opts.kmodel_version != 0 && opts.kmodel_version != 3 && opts.kmodel_version != 4) {
        throw sim::Error(fmt::format("{}: kmodel version {} (expected 3 or 4)", opts.model_name,
                                     opts.kmodel_version));
    }
    using lowering::Lowering;
    lowering::Calibration cal;
    if (opts.kmodel_version == 4) {
        CompiledModel m = charge_cpu_layers(Lowering(g, opts, true, cal).run());
        m.version_why = "asked for";
        return m;
    }
    try {
        CompiledModel m = charge_cpu_layers(Lowering(g, opts, false, cal).run());
        m.version_why = opts.kmodel_version == 3 ? "asked for"
                                                 : "every layer maps to kmodel v3, which the "
                                                   "Kendryte SDK runs without nncase";
        return m;
    } catch (const lowering::NeedsV4& v4) {
        if (opts.kmodel_version == 3) {
            throw sim::Error(
                fmt::format("{}: {}; compile for kmodel v4 instead", opts.model_name, v4.why));
        }
        CompiledModel m = charge_cpu_layers(Lowering(g, opts, true, cal).run());
        m.version_why = v4.why;
        return m;
    }
}

std::string compile_report(const CompiledModel& m) {
    std::string s = fmt::format(
        "kmodel v{} ({}), {} bytes; input '{}' {} quantized as q = round(x / {:.6g}) + {}; KPU "
        "RAM peak {} of 32768 lines; working buffer {} bytes\n",
        m.kmodel_version, m.version_why, m.kmodel.size(), m.input_name, shape_str(m.input_shape),
        m.input_q.scale, m.input_q.zero_point, m.kpu_lines, m.main_mem_bytes);
    s += fmt::format("{:>3}  {:<4} {:<44} {:<12} {:<12} {:<18} {:>9} {:>10} {:>9}  {}\n", "#", "on",
                     "layer", "in", "out", "out q (scale, zp)", "weights", "est.cyc", "act.err",
                     "nodes / why CPU");
    for (const CompiledLayer& l : m.layers) {
        // The uint8 parameters of the output (for float outputs: of its calibrated range, the
        // LSB regress measures errors in).
        const std::string q = fmt::format("{:.4g}, {}", l.lsb.scale, l.lsb.zero_point);
        s += fmt::format("{:>3}  {:<4} {:<44} {:<12} {:<12} {:<18} {:>9} {:>10} {:>9}  {}{}\n",
                         l.kmodel_layer, l.target, l.kind, shape_str(l.in_shape),
                         shape_str(l.out_shape), q, l.weight_bytes, l.est_cycles,
                         l.target == "KPU" ? fmt::format("{} LSB", l.act_error_lsb) : "-", l.nodes,
                         l.why_cpu.empty() ? "" : " (" + l.why_cpu + ")");
    }
    s += "KPU RAM placement (64-byte lines; layers: the one that writes the tensor .. the one "
         "after which it is freed, no later layer reading it):\n";
    for (const KpuPlacement& p : m.kpu_placements) {
        s += fmt::format("  {:>5} .. {:>5}  {:>5} lines  layers {:>3} .. {:<3}  {}\n", p.first_line,
                         p.first_line + p.lines - 1, p.lines,
                         p.written < 0 ? std::string("in") : std::to_string(p.written),
                         p.last < 0 ? std::string("end") : std::to_string(p.last),
                         p.tensor + (p.moved_out ? " (then moved to main memory)" : ""));
    }
    return s;
}

nlohmann::ordered_json compile_report_json(const CompiledModel& m) {
    auto q = [](const QuantParams& p) {
        return nlohmann::ordered_json{{"scale", p.scale}, {"zero_point", p.zero_point}};
    };
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const CompiledLayer& l : m.layers) {
        layers.push_back({{"kmodel_layer", l.kmodel_layer},
                          {"target", l.target},
                          {"kind", l.kind},
                          {"nodes", l.nodes},
                          {"why_cpu", l.why_cpu},
                          {"in_shape", l.in_shape},
                          {"out_shape", l.out_shape},
                          {"in_q", q(l.in_q)},
                          {"out_q", q(l.out_q)},
                          {"weight_bytes", l.weight_bytes},
                          {"macs", l.macs},
                          {"est_cycles", l.est_cycles},
                          {"act_error_lsb", l.act_error_lsb},
                          {"onnx_output", l.onnx_output},
                          {"out_memory", l.out_in_kpu ? "kpu" : "main"},
                          {"out_address", l.out_address},
                          {"out_dtype", l.out_float ? "f32" : "u8"},
                          {"lsb", q(l.lsb)}});
    }
    nlohmann::ordered_json placements = nlohmann::ordered_json::array();
    for (const KpuPlacement& p : m.kpu_placements) {
        placements.push_back({{"tensor", p.tensor},
                              {"first_line", p.first_line},
                              {"lines", p.lines},
                              {"written_by_layer", p.written},
                              {"last_read_by_layer", p.last},
                              {"moved_to_main_memory", p.moved_out}});
    }
    return {{"format", "npusim k210 compile report 1"},
            {"kmodel_version", m.kmodel_version},
            {"kmodel_version_why", m.version_why},
            {"kmodel_bytes", m.kmodel.size()},
            {"input", {{"name", m.input_name}, {"shape", m.input_shape}, {"quant", q(m.input_q)}}},
            {"output", m.output_name},
            {"outputs", m.output_names},
            {"kpu_lines", m.kpu_lines},
            {"kpu_placements", placements},
            {"main_mem_bytes", m.main_mem_bytes},
            {"layers", layers}};
}

namespace {

// A shape the report may give (it is a file anyone can edit): dims 1..65536, at most 2^28
// elements; `rank` 0 takes any rank up to 8.
void check_report_shape(const std::vector<int64_t>& shape, size_t rank, const std::string& where) {
    int64_t n = 1;
    bool ok = rank == 0 ? !shape.empty() && shape.size() <= 8 : shape.size() == rank;
    for (const int64_t d : shape) {
        ok = ok && d >= 1 && d <= 65536 && (n *= d) <= (int64_t{1} << 28);
    }
    if (!ok) {
        throw sim::Error(
            fmt::format("{}: shape {} is not {} of dimensions 1..65536 (at most 2^28 "
                        "elements)",
                        where, fmt::join(shape, "x"), rank == 0 ? "1 to 8" : std::to_string(rank)));
    }
}

QuantParams report_quant(const nlohmann::ordered_json& v) {
    return QuantParams{v.at("scale").get<double>(), v.at("zero_point").get<int32_t>()};
}

// One layer of a compile report (read_compile_report catches nlohmann's exceptions).
CompiledLayer read_report_layer(const nlohmann::ordered_json& l, const std::string& name) {
    CompiledLayer c;
    c.kmodel_layer = l.at("kmodel_layer").get<int>();
    c.target = l.at("target").get<std::string>();
    c.kind = l.at("kind").get<std::string>();
    c.nodes = l.at("nodes").get<std::string>();
    c.why_cpu = l.at("why_cpu").get<std::string>();
    c.in_shape = l.at("in_shape").get<std::vector<int64_t>>();
    c.out_shape = l.at("out_shape").get<std::vector<int64_t>>();
    c.in_q = report_quant(l.at("in_q"));
    c.out_q = report_quant(l.at("out_q"));
    c.weight_bytes = l.at("weight_bytes").get<uint64_t>();
    c.macs = l.at("macs").get<uint64_t>();
    c.est_cycles = l.at("est_cycles").get<uint64_t>();
    c.act_error_lsb = l.at("act_error_lsb").get<int>();
    c.onnx_output = l.at("onnx_output").get<std::string>();
    c.out_in_kpu = l.at("out_memory") == "kpu";
    c.out_address = l.at("out_address").get<uint32_t>();
    c.out_float = l.at("out_dtype") == "f32";
    c.lsb = report_quant(l.at("lsb"));
    const std::string where = fmt::format("{}: layer {}", name, c.kmodel_layer);
    check_report_shape(c.in_shape, 0, where + " in_shape");
    check_report_shape(c.out_shape, c.out_in_kpu ? 4 : 0, where + " out_shape");
    return c;
}

}  // namespace

CompiledModel read_compile_report(const nlohmann::ordered_json& j, const std::string& name) {
    try {
        if (j.at("format") != "npusim k210 compile report 1") {
            throw sim::Error(name + ": not an npusim k210 compile report");
        }
        CompiledModel m;
        m.input_name = j.at("input").at("name").get<std::string>();
        m.input_shape = j.at("input").at("shape").get<std::vector<int64_t>>();
        m.input_q = report_quant(j.at("input").at("quant"));
        m.output_name = j.at("output").get<std::string>();
        m.output_names = j.value("outputs", std::vector<std::string>{m.output_name});
        m.kmodel_version = j.at("kmodel_version").get<int>();
        m.version_why = j.value("kmodel_version_why", std::string());
        m.kpu_lines = j.at("kpu_lines").get<uint32_t>();
        m.main_mem_bytes = j.at("main_mem_bytes").get<uint32_t>();
        for (const auto& p : j.value("kpu_placements", nlohmann::ordered_json::array())) {
            m.kpu_placements.push_back(
                {p.at("tensor").get<std::string>(), p.at("first_line").get<uint32_t>(),
                 p.at("lines").get<uint32_t>(), p.at("written_by_layer").get<int>(),
                 p.at("last_read_by_layer").get<int>()});
        }
        for (const auto& l : j.at("layers")) {
            m.layers.push_back(read_report_layer(l, name));
        }
        if (m.input_shape.size() != 4 || !(m.input_q.scale > 0)) {
            throw sim::Error(name + ": the input is not a 1 x C x H x W image with a scale > 0");
        }
        check_report_shape(m.input_shape, 4, name + ": input shape");
        if (m.layers.empty()) {
            throw sim::Error(name + ": the report lists no layers");
        }
        return m;
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(fmt::format("{}: not a valid compile report ({})", name, e.what()));
    }
}

}  // namespace npu::k210
