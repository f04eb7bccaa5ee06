#include "platforms/finn/finn_report.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "models/finn/finn_cost.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"
#include "sim/core/overload.h"
#include "sim/core/tensor.h"
#include "sim/core/version.h"

namespace npu::finn {

namespace {

constexpr const char* kFinnEstimateNote =
    "As FINN's dataflow_performance computes it on the graph as given: its nodes at FINN's "
    "get_exp_cycles, the slowest one's cycles a frame and the latency as their sum (no overlap).";
constexpr const char* kFormulaEstimateNote =
    "The same on the chain npusim simulates: the width converters it inserts and its own "
    "formulas where they differ from FINN's (docs/finn.md).";

constexpr const char* kLatencyNote =
    "a lower bound: each layer's first output follows its inputs with no pipeline fill, which "
    "FINN's HLS and RTL layers add (docs/finn.md, \"Latency\")";

double per_second(uint64_t cycles, uint64_t clock_hz) {
    return cycles == 0 ? 0 : static_cast<double>(clock_hz) / static_cast<double>(cycles);
}

uint64_t cycles_to_ps(uint64_t cycles, uint64_t clock_hz) {
    return static_cast<uint64_t>(
        static_cast<double>(cycles) * 1e12 / static_cast<double>(clock_hz) + 0.5);
}

// "6 layers, 2 of them converters npusim inserted".
std::string layer_count(const Design& d) {
    size_t inserted = 0;
    for (const Layer& l : d.layers) {
        inserted += l.inserted ? 1 : 0;
    }
    return inserted == 0 ? fmt::format("{} layers", d.layers.size())
                         : fmt::format("{} layers, {} of them width converters npusim inserted",
                                       d.layers.size(), inserted);
}

std::vector<uint64_t> formulas(const Design& d) {
    std::vector<uint64_t> c;
    for (const Layer& l : d.layers) {
        c.push_back(formula_cycles(l.op));
    }
    return c;
}

// FINN's estimate_network_performance.json as its dataflow_performance computes it on the graph
// as given: the graph's own nodes (not the converters npusim inserts) at FINN's get_exp_cycles,
// critical_path_cycles their sum (a chain), max_cycles the first slowest node's, fps and latency
// at the platform's clock (FINN: 1e9 / synth_clk_period_ns).
nlohmann::ordered_json finn_estimate_json(const Design& d, uint64_t clock_hz) {
    std::vector<uint64_t> c;
    std::vector<const Layer*> nodes;
    for (const Layer& l : d.layers) {
        if (!l.inserted) {
            c.push_back(finn_exp_cycles(l.op));
            nodes.push_back(&l);
        }
    }
    const NetworkEstimate e = estimate_chain(c, static_cast<double>(clock_hz));
    const double period_ns = 1e9 / static_cast<double>(clock_hz);
    return {{"critical_path_cycles", e.sum_cycles},
            {"max_cycles", e.max_cycles},
            {"max_cycles_node_name", nodes.empty() ? "" : nodes[e.bottleneck]->name},
            {"estimated_throughput_fps", e.frames_per_second},
            {"estimated_latency_ns", static_cast<double>(e.sum_cycles) * period_ns}};
}

// Our formulas on the chain npusim simulates: inserted converters included, LabelSelect's K
// writes and the max-pool's dropped pixels counted (docs/finn.md, "Cycle formulas").
nlohmann::ordered_json formula_estimate_json(const Design& d, uint64_t clock_hz) {
    const NetworkEstimate e = estimate_chain(formulas(d), static_cast<double>(clock_hz));
    return {{"max_cycles", e.max_cycles},
            {"bottleneck", d.layers[e.bottleneck].name},
            {"frames_per_second", e.frames_per_second},
            {"latency_cycles", e.sum_cycles}};
}

// The two estimates as text, each labelled with whose it is.
std::string estimates_text(const Design& d, const nlohmann::ordered_json& f,
                           const nlohmann::ordered_json& o) {
    return fmt::format(
        "FINN's estimate (its dataflow_performance on the graph as given): max_cycles {} ({}), "
        "critical_path_cycles {}, estimated_throughput_fps {:.0f}, estimated_latency_ns {:.0f}\n"
        "npusim's formulas (the chain it simulates, {}): {} cycles a frame ({}), {:.0f} frames/s, "
        "{} cycles as a sum\n",
        f["max_cycles"].get<uint64_t>(), f["max_cycles_node_name"].get<std::string>(),
        f["critical_path_cycles"].get<uint64_t>(), f["estimated_throughput_fps"].get<double>(),
        f["estimated_latency_ns"].get<double>(), layer_count(d), o["max_cycles"].get<uint64_t>(),
        o["bottleneck"].get<std::string>(), o["frames_per_second"].get<double>(),
        o["latency_cycles"].get<uint64_t>());
}

std::string header(const FinnModel& m, const RunContext& ctx, const char* mode) {
    return fmt::format("npusim {}: {} ({}) on {} ({}), {} frame(s) {} at {}, input {}\n\n",
                       sim::npusim_version(), ctx.request.model, layer_count(m.design),
                       ctx.cfg.name, ctx.source, ctx.frames, mode,
                       sim::format_frequency(ctx.cfg.clock_hz), ctx.input);
}

// PE and SIMD of a layer, as FINN's folding config names them ("-" where it has none).
std::pair<std::string, std::string> folding_of(const LayerOp& op) {
    auto n = [](uint64_t v) {
        return std::to_string(v);
    };
    return std::visit(
        sim::Overload{
            [&](const Mvau& m) {
                return std::pair{n(m.pe), n(m.simd)};
            },
            [&](const Vvau& v) {
                return std::pair{n(v.pe), n(v.simd)};
            },
            [&](const ThresholdingLayer& t) {
                return std::pair{n(t.pe), std::string("-")};
            },
            [&](const SwgShape& s) {
                return std::pair{std::string("-"), n(s.simd)};
            },
            [&](const PoolShape& p) {
                return std::pair{n(p.pe), std::string("-")};
            },
            [&](const DwcLayer& d) {
                return std::pair{n(d.in_elements) + "->" + n(d.out_elements), std::string("-")};
            },
            [&](const LabelSelectLayer& l) {
                return std::pair{n(l.pe), std::string("-")};
            },
        },
        op);
}

// The input as the model declares it (its FINN type) and output.npy as written.
sim::RunRecord base_record(const FinnModel& m, const RunContext& ctx, const char* mode) {
    sim::RunRecord rec;
    rec.mode = mode;
    rec.platform = {"finn",
                    ctx.cfg.name,
                    ctx.source,
                    {{"clock_hz", static_cast<double>(ctx.cfg.clock_hz), "Hz"}}};
    size_t inserted = 0;
    for (const Layer& l : m.design.layers) {
        inserted += l.inserted ? 1 : 0;
    }
    rec.program = {ctx.request.model,
                   "FINN-ONNX",
                   {{"layers", static_cast<double>(m.design.layers.size()), ""},
                    {"converters_inserted", static_cast<double>(inserted), ""}}};
    sim::Shape in{static_cast<int64_t>(ctx.frames)};
    in.insert(in.end(), m.in_shape.begin() + (m.in_shape.size() > 1 ? 1 : 0), m.in_shape.end());
    rec.inputs = {{m.input_name, "", in, m.in_type.name(), ctx.input, "", std::nullopt}};
    const bool fixed = m.out_type.kind() == DataType::Kind::Fixed;
    rec.outputs = {{m.output_name, "output.npy", output_shape(m, ctx.frames),
                    fixed ? "float32" : "int32",
                    fmt::format("values of FINN's type {}", m.out_type.name()), "", std::nullopt}};
    rec.totals = {{"frames", static_cast<double>(ctx.frames), "frames"}};
    rec.extra = {{"folding", ctx.request.option("folding")}};
    return rec;
}

// The columns of a one-row JSON object as a table, each key's unit read from its suffix.
sim::Table one_row_table(const char* name, const char* title, const char* note,
                         const nlohmann::ordered_json& row) {
    sim::Table t{name, title, note, {}, {{}}, ""};
    for (const auto& [key, value] : row.items()) {
        const auto ends = [&](const std::string& suffix) {
            return key.size() >= suffix.size() &&
                   key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        const char* unit = ends("cycles")                             ? "cycles"
                           : ends("_ns")                              ? "ns"
                           : ends("fps") || ends("frames_per_second") ? "frames/s"
                                                                      : "";
        t.columns.push_back({key, unit});
        if (value.is_string()) {
            t.rows[0].emplace_back(value.get<std::string>());
        } else {
            t.rows[0].emplace_back(value.get<double>());
        }
    }
    return t;
}

std::string layer_table(const DesignRun& r) {
    size_t w = 5, fw = 4;  // the widest layer and FIFO names
    for (const NodeReport& n : r.nodes) {
        w = std::max(w, n.name.size());
    }
    for (const FifoReport& f : r.fifos) {
        fw = std::max(fw, f.name.size());
    }
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "{:<{}}  {:<27} {:>9} {:>9} {:>9} {:>9} {:>6}\n", "layer", w, "op",
                   "formula", "simulated", "waited", "held", "busy");
    for (const NodeReport& n : r.nodes) {
        fmt::format_to(it, "{:<{}}  {:<27} {:>9} {:>9} {:>9} {:>9} {:>5.1f}%\n", n.name, w,
                       n.op_type, n.formula_cycles, n.frame_cycles, n.input_stall, n.output_stall,
                       100 * n.busy);
    }
    fmt::format_to(it, "\n{:<{}}  {:>6} {:>6} {:>9} {:>12} {:>13}\n", "FIFO", fw, "depth", "max",
                   "words", "writer held", "reader waited");
    for (const FifoReport& f : r.fifos) {
        fmt::format_to(it, "{:<{}}  {:>6} {:>6} {:>9} {:>12} {:>13}\n", f.name, fw, f.depth,
                       f.max_occupancy, f.words, f.write_stall, f.read_stall);
    }
    return s;
}

// Multiply-accumulates a frame: the MVAU's and VVAU's; the other layers have none.
uint64_t macs_of(const LayerOp& op) {
    if (const auto* m = std::get_if<Mvau>(&op)) {
        return uint64_t{m->mw} * m->mh * m->vectors;
    }
    if (const auto* v = std::get_if<Vvau>(&op)) {
        return uint64_t{v->channels} * v->k() * v->pixels;
    }
    return 0;
}

// "64 -> 10" (an MVAU's MW -> MH, "x N" for N vectors a frame), "32 ch 3x3 x 64" (a VVAU's
// channels, kernel and pixels); "" for the other layers.
std::string shape_of(const LayerOp& op) {
    if (const auto* m = std::get_if<Mvau>(&op)) {
        return fmt::format("{} -> {}", m->mw, m->mh) +
               (m->vectors > 1 ? fmt::format(" x {}", m->vectors) : "");
    }
    if (const auto* v = std::get_if<Vvau>(&op)) {
        return fmt::format("{} ch {}x{} x {}", v->channels, v->kh, v->kw, v->pixels);
    }
    return "";
}

// Per layer: its span from its first read to its last iteration and, from the start of the run
// to its end, the cycles it was busy, waited for input and was held by a full output FIFO.
std::vector<sim::LayerRecord> layer_records(const Design& d, const DesignRun& r, uint64_t hz) {
    std::vector<sim::LayerRecord> out;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
        const NodeReport& n = r.nodes[i];
        const uint64_t waited = n.input_stall, held = n.output_stall;
        const uint64_t busy = n.end > waited + held ? n.end - waited - held : 0;
        sim::EngineTime e{
            "layer",
            cycles_to_ps(n.end, hz),
            "clock",
            static_cast<double>(hz),
            {{"busy", busy}, {"waiting for input", waited}, {"held (FIFO full)", held}}};
        auto c = [](const char* name, uint64_t v) {
            return sim::Quantity{name, static_cast<double>(v), "cycles"};
        };
        out.push_back({i,
                       n.op_type,
                       i < d.layers.size() ? shape_of(d.layers[i].op) : "",
                       i < d.layers.size() ? macs_of(d.layers[i].op) : 0,
                       0,
                       cycles_to_ps(n.start, hz),
                       cycles_to_ps(n.end, hz),
                       {e},
                       {c("formula_cycles", n.formula_cycles),
                        c("frame_cycles", n.frame_cycles),
                        c("start_cycle", n.start),
                        c("end_cycle", n.end),
                        c("input_stall_cycles", waited),
                        c("output_stall_cycles", held),
                        {"busy", n.busy, ""}},
                       n.name});
    }
    return out;
}

sim::Table fifo_table(const DesignRun& r) {
    sim::Table t{"fifos",
                 "FIFOs",
                 "Each FIFO between two layers (input and output at the ends): its depth, the "
                 "most words it held, the words through it, the cycles its writer was held by it "
                 "full and its reader waited on it empty.",
                 {{"name", ""},
                  {"depth", "words"},
                  {"max_occupancy", "words"},
                  {"words", "words"},
                  {"write_stall_cycles", "cycles"},
                  {"read_stall_cycles", "cycles"}},
                 {},
                 ""};
    for (const FifoReport& f : r.fifos) {
        auto d = [](uint64_t v) {
            return sim::Table::Cell(static_cast<double>(v));
        };
        t.rows.push_back({f.name, d(f.depth), d(f.max_occupancy), d(f.words), d(f.write_stall),
                          d(f.read_stall)});
    }
    return t;
}

std::string depths_text(const std::vector<uint64_t>& d) {
    return fmt::format("{}", fmt::join(d, " "));
}

void sizing_report(platform::RunReport& rep, const Sizing& s, uint64_t clock_hz) {
    std::vector<uint64_t> before;
    for (const FifoReport& f : s.before.fifos) {
        before.push_back(f.depth);
    }
    fmt::format_to(std::back_inserter(rep.text),
                   "FIFO sizing: with the model's depths ({}) the interval is {} cycles; the "
                   "smallest depths that keep {} ({} simulations): {} -> interval {} cycles "
                   "({:.0f} frames/s); written folding_sized.json\n",
                   depths_text(before), s.before.interval(), s.result.target_interval,
                   s.result.simulations, depths_text(s.result.depths), s.result.interval,
                   per_second(s.result.interval, clock_hz));
    rep.record->tables.push_back(
        one_row_table("fifo_sizing", "FIFO sizing",
                      "The smallest FIFO depths (in the order of the FIFOs table) that keep the "
                      "interval the design has with the deepest FIFOs, found by simulation.",
                      {{"interval_before_cycles", s.before.interval()},
                       {"target_interval_cycles", s.result.target_interval},
                       {"interval_cycles", s.result.interval},
                       {"depths", depths_text(s.result.depths)},
                       {"simulations", s.result.simulations},
                       {"file", "folding_sized.json"}}));
}

}  // namespace

std::string program_table(const FinnModel& m, const std::string& path) {
    size_t w = 5;
    for (const Layer& l : m.design.layers) {
        w = std::max(w, l.name.size());
    }
    std::string s = fmt::format("{}: {}; input '{}' {} {}, output '{}' {}\n\n", path,
                                layer_count(m.design), m.input_name, m.in_type.name(),
                                sim::shape_str(m.in_shape), m.output_name, m.out_type.name());
    auto it = std::back_inserter(s);
    fmt::format_to(it, "{:<{}}  {:<27} {:>7} {:>5} {:>12} {:>10}\n", "layer", w, "op", "PE", "SIMD",
                   "cycles/frame", "FIFO before");
    for (size_t i = 0; i < m.design.layers.size(); ++i) {
        const Layer& l = m.design.layers[i];
        const auto [pe, simd] = folding_of(l.op);
        fmt::format_to(it, "{:<{}}  {:<27} {:>7} {:>5} {:>12} {:>10}\n", l.name, w, op_name(l.op),
                       pe, simd, formula_cycles(l.op), m.design.fifo_depths[i]);
    }
    return s;
}

sim::Shape output_shape(const FinnModel& m, uint64_t frames) {
    // Built in one step: GCC 12 at -O2 warns (-Warray-bounds, a false positive) about a
    // push_back onto a one-element vector here.
    const bool shaped = m.out_shape.size() > 1;
    sim::Shape shape(shaped ? m.out_shape.size() : 2);
    shape[0] = static_cast<int64_t>(frames);
    if (shaped) {
        std::copy(m.out_shape.begin() + 1, m.out_shape.end(), shape.begin() + 1);
    } else {
        shape[1] = static_cast<int64_t>(m.out_elements);
    }
    return shape;
}

void functional_report(platform::RunReport& rep, const FinnModel& m, const RunContext& ctx) {
    rep.text = header(m, ctx, "values only (--functional)");
    rep.text +=
        "output.npy: the last layer's values per frame (no time: run without --functional "
        "for cycles)\n";
    sim::RunRecord rec = base_record(m, ctx, "functional");
    for (size_t i = 0; i < m.design.layers.size(); ++i) {
        const Layer& l = m.design.layers[i];
        rec.layers.push_back(
            {i,
             op_name(l.op),
             shape_of(l.op),
             macs_of(l.op),
             0,
             std::nullopt,
             std::nullopt,
             {},
             {{"formula_cycles", static_cast<double>(formula_cycles(l.op)), "cycles"}},
             l.name});
    }
    rep.record = std::move(rec);
}

void timed_report(platform::RunReport& rep, const FinnModel& m, const DesignRun& r,
                  const Sizing* sizing, const RunContext& ctx) {
    const uint64_t hz = ctx.cfg.clock_hz;
    rep.text = header(m, ctx, "streamed");
    rep.text += layer_table(r);
    fmt::format_to(std::back_inserter(rep.text),
                   "\ninterval {} cycles: {:.0f} frames/s at {}; the first frame's last output "
                   "after {} cycles ({:.3f} us, a lower bound: layers add no pipeline fill); {} "
                   "frames in {} cycles\n",
                   r.interval(), per_second(r.interval(), hz), sim::format_frequency(hz),
                   r.latency(), static_cast<double>(cycles_to_ps(r.latency(), hz)) / 1e6,
                   ctx.frames, r.cycles);
    const nlohmann::ordered_json finn = finn_estimate_json(m.design, hz);
    const nlohmann::ordered_json ours = formula_estimate_json(m.design, hz);
    rep.text += estimates_text(m.design, finn, ours);
    sim::RunRecord rec = base_record(m, ctx, "timed");
    rec.layers = layer_records(m.design, r, hz);
    const auto d = [](uint64_t v) {
        return static_cast<double>(v);
    };
    rec.totals = {{"interval_cycles", d(r.interval()), "cycles"},
                  {"frames_per_second", per_second(r.interval(), hz), "frames/s"},
                  {"latency_cycles", d(r.latency()), "cycles"},
                  {"latency_ps", d(cycles_to_ps(r.latency(), hz)), "ps"},
                  {"cycles", d(r.cycles), "cycles"},
                  {"frames", d(ctx.frames), "frames"}};
    rec.notes = {std::string("latency_cycles: ") + kLatencyNote};
    rec.tables = {
        fifo_table(r), one_row_table("finn_estimate", "FINN's estimate", kFinnEstimateNote, finn),
        one_row_table("formula_estimate", "npusim's formulas", kFormulaEstimateNote, ours)};
    rep.record = std::move(rec);
    if (sizing != nullptr) {
        sizing_report(rep, *sizing, hz);
    }
}

void add_trace(sim::TraceWriter& trace, const DesignRun& r, uint64_t clock_hz) {
    for (size_t i = 0; i < r.nodes.size(); ++i) {
        const NodeReport& n = r.nodes[i];
        const int track = trace.track(n.name);
        for (size_t f = 0; f < n.frame_starts.size(); ++f) {
            const uint64_t end = f + 1 < n.frame_starts.size() ? n.frame_starts[f + 1] : n.end;
            trace.complete(track, fmt::format("frame {}", f), n.op_type,
                           cycles_to_ps(n.frame_starts[f], clock_hz),
                           cycles_to_ps(end - n.frame_starts[f], clock_hz),
                           {{"formula_cycles", n.formula_cycles}});
        }
    }
    for (const FifoReport& f : r.fifos) {
        for (const auto& [cycle, words] : f.occupancy) {
            trace.counter("FIFO " + f.name, cycles_to_ps(cycle, clock_hz),
                          static_cast<double>(words));
        }
    }
}

platform::OutputFile sized_folding(const FinnModel& m, const std::string& folding_path,
                                   const std::vector<uint64_t>& depths) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (!folding_path.empty()) {
        const std::vector<uint8_t> bytes = sim::read_file(folding_path);
        j = nlohmann::ordered_json::parse(bytes.begin(), bytes.end());
    }
    for (size_t i = 0; i < m.design.layers.size(); ++i) {
        if (m.design.layers[i].inserted) {
            continue;  // FINN inserts its own converter; the FIFOs beside it are its neighbours'
        }
        nlohmann::ordered_json& node = j[m.design.layers[i].name];
        node["inFIFODepths"] = {depths[i]};
        node["outFIFODepths"] = {depths[i + 1]};
    }
    const std::string text = sim::json_text(j, 2) + "\n";
    return {"folding_sized.json", {text.begin(), text.end()}};
}

namespace {

// The estimate as a record: per layer a frame's cycles by npusim's formula (the engine "layer",
// at the clock) with FINN's where the graph has the node, and its resource estimates; the
// totals; FINN's estimate and npusim's formulas as tables.
sim::RunRecord estimate_record(const FinnModel& m, const platform::EstimateRequest& req,
                               const FinnPlatformConfig& cfg, const std::string& source,
                               const nlohmann::ordered_json& totals,
                               const nlohmann::ordered_json& finn,
                               const nlohmann::ordered_json& ours) {
    const uint64_t hz = cfg.clock_hz;
    sim::RunRecord rec;
    rec.command = "estimate";
    rec.mode = "estimate";
    rec.platform = {"finn", cfg.name, source, {{"clock_hz", static_cast<double>(hz), "Hz"}}};
    rec.program = {
        req.model, "FINN-ONNX", {{"layers", static_cast<double>(m.design.layers.size()), ""}}};
    for (size_t i = 0; i < m.design.layers.size(); ++i) {
        const Layer& l = m.design.layers[i];
        const uint64_t c = formula_cycles(l.op);
        const Resources r = resources(l, cfg.dsp58);
        const auto d = [](uint64_t v) {
            return static_cast<double>(v);
        };
        sim::LayerRecord lr{i,  op_name(l.op), shape_of(l.op), macs_of(l.op),
                            0,  std::nullopt,  std::nullopt,   {},
                            {}, l.name};
        lr.engines.push_back({"layer", cycles_to_ps(c, hz), "clock", d(hz), {{"frame", c}}});
        lr.measures = {{"cycles", d(c), "cycles"}};
        if (!l.inserted) {
            lr.measures.push_back({"finn_cycles", d(finn_exp_cycles(l.op)), "cycles"});
        }
        lr.measures.push_back({"LUT", d(r.lut), ""});
        lr.measures.push_back({"BRAM_18K", d(r.bram_18k), ""});
        lr.measures.push_back({"URAM", d(r.uram), ""});
        lr.measures.push_back({"DSP", d(r.dsp), ""});
        rec.layers.push_back(std::move(lr));
    }
    for (const auto& [k, v] : totals.items()) {
        if (v.is_number()) {
            rec.totals.push_back({k, v.get<double>(), ""});
        }
    }
    rec.tables = {
        one_row_table("finn_estimate", "FINN's estimate", kFinnEstimateNote, finn),
        one_row_table("formula_estimate", "npusim's formulas", kFormulaEstimateNote, ours)};
    rec.extra = {{"folding", req.option("folding")}};
    return rec;
}

}  // namespace

platform::EstimateReport estimate_report(const FinnModel& m, const platform::EstimateRequest& req,
                                         const FinnPlatformConfig& cfg, const std::string& source) {
    platform::EstimateReport rep;
    const uint64_t hz = cfg.clock_hz;
    auto it = std::back_inserter(rep.text);
    fmt::format_to(it, "{} ({} layers) on {} ({}) at {}: formulas, no simulation\n\n", req.model,
                   m.design.layers.size(), cfg.name, source, sim::format_frequency(hz));
    size_t w = 5;
    for (const Layer& l : m.design.layers) {
        w = std::max(w, l.name.size());
    }
    fmt::format_to(it, "{:<{}}  {:<27} {:>11} {:>15} {:>7} {:>8}\n", "layer", w, "op",
                   "FINN cycles", "npusim formula", "LUT", "BRAM_18K");
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    const std::vector<uint64_t> c = formulas(m.design);
    Resources total;
    for (size_t i = 0; i < c.size(); ++i) {
        const Layer& l = m.design.layers[i];
        nlohmann::ordered_json row = {{"name", l.name}, {"op_type", op_name(l.op)}};
        std::string finn = "-";  // not in the graph: FINN's estimate does not see it
        if (!l.inserted) {
            row["finn_cycles"] = finn_exp_cycles(l.op);
            finn = std::to_string(finn_exp_cycles(l.op));
        }
        row["cycles"] = c[i];
        const Resources r = resources(l, cfg.dsp58);
        total += r;
        row["LUT"] = r.lut, row["BRAM_18K"] = r.bram_18k, row["URAM"] = r.uram, row["DSP"] = r.dsp;
        fmt::format_to(it, "{:<{}}  {:<27} {:>11} {:>15} {:>7} {:>8}\n", l.name, w, op_name(l.op),
                       finn, c[i], r.lut, r.bram_18k);
        layers.push_back(row);
    }
    fmt::format_to(it,
                   "\nresources (FINN's estimates of the MVAU and VVAU layers): LUT {}, BRAM_18K "
                   "{}, URAM {}, DSP {}\n",
                   total.lut, total.bram_18k, total.uram, total.dsp);
    const nlohmann::ordered_json finn = finn_estimate_json(m.design, hz);
    const nlohmann::ordered_json ours = formula_estimate_json(m.design, hz);
    rep.text += "\n" + estimates_text(m.design, finn, ours);
    nlohmann::ordered_json totals = finn;
    for (const auto& [k, v] : ours.items()) {
        totals["formula_" + k] = v;
    }
    totals["LUT"] = total.lut, totals["BRAM_18K"] = total.bram_18k;
    totals["URAM"] = total.uram, totals["DSP"] = total.dsp;
    rep.record = estimate_record(m, req, cfg, source, totals, finn, ours);
    if (req.to_files) {
        nlohmann::ordered_json j = {{"model", req.model},    {"folding", req.option("folding")},
                                    {"clock_hz", hz},        {"layers", layers},
                                    {"finn_estimate", finn}, {"formula_estimate", ours}};
        const std::string text = sim::json_text(j, 1) + "\n";
        rep.files.push_back({"estimate.json", {text.begin(), text.end()}});
    }
    return rep;
}

}  // namespace npu::finn
