#include "platforms/k210/k210_run.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/digest.h"
#include "sim/core/error.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

using platform::OutputFile;

double us(uint64_t ps) {
    return static_cast<double>(ps) / 1e6;
}

std::vector<uint8_t> bytes_of(const std::string& s) {
    return {s.begin(), s.end()};
}

// One kmodel layer of a timed run, with the KPU's costs joined in, and where its time went: the
// KPU (fixed, parameter fetch, compute), the CPU (own work, runtime overhead, read-back) and the
// rest of the layer's wall time (bus transactions and the DMA drain).
struct Row {
    size_t index;
    std::string type;
    std::string shape;
    uint64_t macs = 0, kpu_cycles = 0, cpu_cycles = 0, weight_bytes = 0, bus_bytes = 0;
    uint64_t start_ps = 0, end_ps = 0;
    double utilization = 0;
    uint64_t kpu_fixed = 0, kpu_fetch = 0, kpu_compute = 0, kpu_output = 0;  // KPU cycles
    uint64_t cpu_work = 0, cpu_overhead = 0, readback = 0;                   // CPU cycles
    uint64_t kpu_ps = 0, cpu_ps = 0, bus_dma_ps = 0;                         // wall time split
};

uint64_t cycles_ps(uint64_t cycles, uint64_t hz) {
    return static_cast<uint64_t>(
        std::llround(static_cast<double>(cycles) * 1e12 / static_cast<double>(hz)));
}

std::vector<Row> rows_of(const RunResult& r, const kpu::Kpu& kpu, uint64_t kpu_hz,
                         uint64_t cpu_hz) {
    std::vector<Row> rows;
    for (const LayerRun& l : r.layers) {
        Row row{l.index, l.type, "", 0, 0, l.cpu_cycles, 0, l.bus_bytes, l.start_ps, l.end_ps, 0};
        row.cpu_work = l.cpu_work_cycles, row.cpu_overhead = l.cpu_overhead_cycles;
        row.readback = l.readback_cycles;
        // A v4 kpu_conv2d with batches ran one KPU layer per batch: their sums, and the
        // cycle-weighted utilization.
        double busy = 0;
        for (int b = 0; b < l.kpu_layers; ++b) {
            const size_t at = static_cast<size_t>(l.kpu_layer + b);
            if (l.kpu_layer < 0 || at >= kpu.layers().size()) {
                break;
            }
            const kpu::LayerRecord& k = kpu.layers()[at];
            row.shape = kpu::shape_summary(k.args) +
                        (l.kpu_layers > 1 ? fmt::format(" x{}", l.kpu_layers) : "");
            row.macs += k.cost.macs;
            row.kpu_cycles += k.cost.total_cycles;
            row.kpu_fixed += k.cost.fixed_cycles;
            row.kpu_fetch += k.cost.param_fetch_cycles + k.cost.exposed_fetch_cycles;
            row.kpu_compute += k.cost.compute_cycles;
            row.kpu_output += k.cost.output_cycles;
            row.weight_bytes += k.cost.weight_bytes + k.cost.param_bytes;
            busy += k.cost.utilization() * static_cast<double>(k.cost.total_cycles);
        }
        row.utilization = row.kpu_cycles > 0 ? busy / static_cast<double>(row.kpu_cycles) : 0;
        row.kpu_ps = cycles_ps(row.kpu_cycles, kpu_hz),
        row.cpu_ps = cycles_ps(row.cpu_cycles, cpu_hz);
        const uint64_t wall = row.end_ps - row.start_ps;
        row.bus_dma_ps = wall > row.kpu_ps + row.cpu_ps ? wall - row.kpu_ps - row.cpu_ps : 0;
        rows.push_back(row);
    }
    return rows;
}

std::string layers_csv(const std::vector<Row>& rows) {
    std::string s =
        "index,type,shape,macs,kpu_cycles,cpu_cycles,param_bytes,cpu_bus_bytes,start_us,end_us,"
        "utilization,kpu_fixed_cycles,kpu_fetch_cycles,kpu_compute_cycles,kpu_output_cycles,"
        "cpu_work_cycles,"
        "cpu_overhead_cycles,readback_cycles,kpu_us,cpu_us,bus_dma_us\n";
    for (const Row& r : rows) {
        s += fmt::format(
            "{},{},\"{}\",{},{},{},{},{},{:.3f},{:.3f},{:.4f},{},{},{},{},{},{},{},{:.3f},"
            "{:.3f},{:.3f}\n",
            r.index, r.type, r.shape, r.macs, r.kpu_cycles, r.cpu_cycles, r.weight_bytes,
            r.bus_bytes, us(r.start_ps), us(r.end_ps), r.utilization, r.kpu_fixed, r.kpu_fetch,
            r.kpu_compute, r.kpu_output, r.cpu_work, r.cpu_overhead, r.readback, us(r.kpu_ps),
            us(r.cpu_ps), us(r.bus_dma_ps));
    }
    return s;
}

nlohmann::ordered_json layer_json(const Row& row) {
    return {{"index", row.index},
            {"type", row.type},
            {"shape", row.shape},
            {"macs", row.macs},
            {"kpu_cycles", row.kpu_cycles},
            {"cpu_cycles", row.cpu_cycles},
            {"param_bytes", row.weight_bytes},
            {"cpu_bus_bytes", row.bus_bytes},
            {"start_ps", row.start_ps},
            {"end_ps", row.end_ps},
            {"utilization", row.utilization},
            {"kpu_fixed_cycles", row.kpu_fixed},
            {"kpu_fetch_cycles", row.kpu_fetch},
            {"kpu_compute_cycles", row.kpu_compute},
            {"kpu_output_cycles", row.kpu_output},
            {"cpu_work_cycles", row.cpu_work},
            {"cpu_overhead_cycles", row.cpu_overhead},
            {"readback_cycles", row.readback},
            {"time_ps", {{"kpu", row.kpu_ps}, {"cpu", row.cpu_ps}, {"bus_dma", row.bus_dma_ps}}}};
}

// Σ over the layers of where the time went, in ms: KPU, CPU work, CPU overhead, read-back, bus
// and DMA.
nlohmann::ordered_json time_split(const std::vector<Row>& rows, uint64_t cpu_hz) {
    uint64_t kpu = 0, work = 0, overhead = 0, readback = 0, bus = 0;
    for (const Row& r : rows) {
        kpu += r.kpu_ps, bus += r.bus_dma_ps;
        work += r.cpu_work, overhead += r.cpu_overhead, readback += r.readback;
    }
    auto ms = [](uint64_t ps) {
        return static_cast<double>(ps) / 1e9;
    };
    return {{"kpu_ms", ms(kpu)},
            {"cpu_work_ms", ms(cycles_ps(work, cpu_hz))},
            {"cpu_overhead_ms", ms(cycles_ps(overhead, cpu_hz))},
            {"readback_ms", ms(cycles_ps(readback, cpu_hz))},
            {"bus_dma_ms", ms(bus)}};
}

// The demo's files: the model and input (to rerun with --model/--input), and every map as PNG.
void add_demo_files(std::vector<OutputFile>& files, const DemoModel& m, const sim::Tensor& input,
                    const std::vector<sim::Tensor>& outputs) {
    files.push_back({"demo.kmodel", m.kmodel});
    files.push_back({"input.npy", sim::encode_npy(input)});
    files.push_back({"input.png", sim::encode_png(input.bytes(), 3, static_cast<int>(input.dim(2)),
                                                  static_cast<int>(input.dim(3)))});
    for (size_t i = 0; i < outputs.size() && i < m.output_shapes.size(); ++i) {
        const sim::Shape& s = m.output_shapes[i];
        const size_t plane = static_cast<size_t>(s[2] * s[3]);
        for (size_t c = 0; c < static_cast<size_t>(s[1]); ++c) {
            const std::vector<uint8_t> gray =
                sim::to_gray8(outputs[i].data<float>() + c * plane, plane, 0.0f, 1.0f);
            files.push_back(
                {fmt::format("output_{}_{}.png", i, m.channel_names[i][c]),
                 sim::encode_png(gray.data(), 1, static_cast<int>(s[2]), static_cast<int>(s[3]))});
        }
    }
}

void reshape_demo_outputs(const DemoModel* demo, std::vector<sim::Tensor>& outputs) {
    if (demo != nullptr) {  // v3 outputs are flat; the demo knows its shapes
        for (size_t i = 0; i < outputs.size() && i < demo->output_shapes.size(); ++i) {
            outputs[i].reshape(demo->output_shapes[i]);
        }
    }
}

nlohmann::ordered_json report_head(const K210Job& job, bool functional) {
    nlohmann::ordered_json j;
    j["mode"] = functional ? "functional" : "timed";
    j["platform"] = {
        {"kind", "k210"},
        {"name", job.cfg->platform.name},
        {"source", job.source},
        {"kpu_clock_hz", job.cfg->kpu.timing.clock_hz},
        {"cpu_clock_hz", job.cfg->cpu.clock_hz},
        // The roofline's: 576 multipliers × 2 ops per cycle, and the KPU's
        // parameter-fetch port (bytes per beat × its clock).
        {"peak_ops_per_s", 2.0 * 576 * static_cast<double>(job.cfg->kpu.timing.clock_hz)},
        {"peak_bytes_per_s", static_cast<double>(job.cfg->kpu.timing.bus.data_width_bytes) *
                                 static_cast<double>(job.cfg->kpu.timing.bus.clock_hz)}};
    j["model"] = {{"file", job.model_file},
                  {"version", job.model.version},
                  {"layers", job.model.layers.size()},
                  {"kpu_layers", job.model.convs.size()}};
    j["input"] = {{"file", job.input_name},
                  {"shape", job.input.shape()},
                  {"dtype", sim::dtype_name(job.input.dtype())},
                  {"preprocessing", job.conversion}};
    return j;
}

// The outputs as output_<i>.npy, and their entries of report.json.
nlohmann::ordered_json add_outputs(std::vector<OutputFile>& files,
                                   const std::vector<sim::Tensor>& outputs) {
    nlohmann::ordered_json outs = nlohmann::ordered_json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string name = fmt::format("output_{}.npy", i);
        files.push_back({name, sim::encode_npy(outputs[i])});
        outs.push_back({{"file", name},
                        {"shape", outputs[i].shape()},
                        {"dtype", sim::dtype_name(outputs[i].dtype())}});
    }
    return outs;
}

// --dump-all: each layer's result as layer_<index>_<type>.npy, and its report.json entry with
// the SHA-256 of the tensor's bytes (the .npy payload, little-endian).
nlohmann::ordered_json add_dumps(std::vector<OutputFile>& files,
                                 const std::vector<LayerDump>& dumps) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const LayerDump& d : dumps) {
        files.push_back({d.file, sim::encode_npy(d.tensor)});
        out.push_back({{"index", d.index},
                       {"type", d.type},
                       {"where", d.where},
                       {"file", d.file},
                       {"dtype", sim::dtype_name(d.tensor.dtype())},
                       {"shape", d.tensor.shape()},
                       {"sha256", sim::sha256_hex(d.tensor.bytes(), d.tensor.size_bytes())}});
    }
    return out;
}

FunctionalOptions functional_options(const K210Job& job) {
    FunctionalOptions fo;
    fo.fidelity = job.cfg->kpu.fidelity;
    fo.fused_multiply_add = job.cfg->cpu.fused_multiply_add;
    return fo;
}

// The values-only run's layer table (text) and report.json entries.
nlohmann::ordered_json values_only_layers(const K210Job& job, const FunctionalResult& r,
                                          std::string& text, uint64_t& macs) {
    auto it = std::back_inserter(text);
    fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10}\n", "#", "layer", "shape", "MACs",
                   "elements");
    size_t conv = 0;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const FunctionalLayer& l : r.layers) {
        const KmodelLayer& ml = job.model.layers[l.index];
        std::string shape;
        if (is_kpu_layer(job.model.version, ml.type)) {
            shape = kpu::shape_summary(job.model.convs[conv++].args);
        }
        fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10}\n", l.index, ml.type_name, shape,
                       l.macs, l.elements);
        layers.push_back({{"index", l.index},
                          {"type", ml.type_name},
                          {"shape", shape},
                          {"macs", l.macs},
                          {"cpu_elements", l.elements},
                          {"overflows", l.overflows}});
        macs += l.macs;
    }
    return layers;
}

}  // namespace

platform::RunReport run_values_only(const K210Job& job, const platform::RunRequest& request) {
    platform::RunReport rep;
    if (job.digits != nullptr) {
        rep.text = job.digits->text;
        add_digits_files(rep.files, *job.digits);
    }
    FunctionalOptions fo = functional_options(job);
    fo.dump_all = request.dump_all;
    if (request.progress) {
        fo.on_layer = [&](const FunctionalLayer& l, size_t done, size_t total) {
            request.progress(done, total, job.model.layers[l.index].type_name);
        };
    }
    FunctionalResult r = run_functional(job.model, job.input, fo);
    reshape_demo_outputs(job.demo, r.outputs);
    auto it = std::back_inserter(rep.text);
    fmt::format_to(it, "npusim {}: {} (kmodel v{}), functional run (values only, no timing)\n",
                   sim::npusim_version(), job.model.name, job.model.version);
    fmt::format_to(it, "input: {} {} ({})\n\n", job.input_name, sim::shape_str(job.input.shape()),
                   job.conversion);
    uint64_t macs = 0;
    nlohmann::ordered_json layers = values_only_layers(job, r, rep.text, macs);
    fmt::format_to(it, "\nfunctional run: {} layers, {} MACs, {} outputs\n", r.layers.size(), macs,
                   r.outputs.size());
    rep.json = report_head(job, true);
    rep.json["layers"] = layers;
    rep.json["totals"] = {{"macs", macs}};
    rep.json["outputs"] = add_outputs(rep.files, r.outputs);
    if (request.dump_all) {
        rep.json["layer_dumps"] = add_dumps(rep.files, r.dumps);
    }
    if (job.demo != nullptr) {
        add_demo_files(rep.files, *job.demo, job.input, r.outputs);
    }
    return rep;
}

namespace {

// The timed run's summary: one line per kmodel layer, then the inference time.
void timed_text(const K210Job& job, const RunResult& r, const std::vector<Row>& rows,
                std::string& text, uint64_t& macs, uint64_t& kpu_cycles) {
    auto it = std::back_inserter(text);
    fmt::format_to(it, "npusim {}: {} (kmodel v{}) on {} ({})\n", sim::npusim_version(),
                   job.model.name, job.model.version, job.cfg->platform.name, job.source);
    fmt::format_to(it, "input: {} {} ({})\n\n", job.input_name, sim::shape_str(job.input.shape()),
                   job.conversion);
    fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10} {:>10} {:>6}\n", "#", "layer", "shape",
                   "MACs", "KPU cyc", "time us", "util");
    for (const Row& row : rows) {
        fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10} {:>10.1f} {:>5.0f}%\n", row.index,
                       row.type, row.shape, row.macs, row.kpu_cycles, us(row.end_ps - row.start_ps),
                       row.utilization * 100);
        macs += row.macs;
        kpu_cycles += row.kpu_cycles;
    }
    const double inference_ms = static_cast<double>(r.end_ps - r.load_end_ps) / 1e9;
    fmt::format_to(it,
                   "\ninference: {:.3f} ms ({} layers, {} MACs, {} KPU cycles at {}), {} outputs\n",
                   inference_ms, rows.size(), macs, kpu_cycles,
                   sim::format_frequency(job.cfg->kpu.timing.clock_hz), r.outputs.size());
    const nlohmann::ordered_json t = time_split(rows, job.cfg->cpu.clock_hz);
    fmt::format_to(it,
                   "layer time: KPU {:.3f} ms, CPU {:.3f} ms (work {:.3f}, read-back {:.3f}, "
                   "runtime {:.3f}), bus and DMA {:.3f} ms\n",
                   t["kpu_ms"].get<double>(),
                   t["cpu_work_ms"].get<double>() + t["readback_ms"].get<double>() +
                       t["cpu_overhead_ms"].get<double>(),
                   t["cpu_work_ms"].get<double>(), t["readback_ms"].get<double>(),
                   t["cpu_overhead_ms"].get<double>(), t["bus_dma_ms"].get<double>());
}

}  // namespace

platform::RunReport run_timed(const K210Job& job, const platform::RunRequest& request) {
    platform::RunReport rep;
    if (job.digits != nullptr) {
        rep.text = job.digits->text;
    }
    sim::Session session({request.trace, request.verbose});
    sim::TraceWriter& trace = session.trace();
    K210Platform soc("k210", *job.cfg, trace);
    K210Driver driver("driver", soc, trace);
    driver.load(job.model, job.input);
    driver.dump_all(request.dump_all);
    if (request.progress) {
        driver.on_layer([&](const LayerRun& l, size_t done, size_t total) {
            request.progress(done, total, l.type);
        });
    }
    session.run();
    RunResult r = driver.result();
    reshape_demo_outputs(job.demo, r.outputs);
    if (!r.error.empty() || !r.done) {  // returned, not thrown (RunReport::error)
        rep.error =
            r.error.empty() ? "the driver did not finish (a layer never completed)" : r.error;
        return rep;
    }
    const std::vector<Row> rows =
        rows_of(r, soc.kpu, job.cfg->kpu.timing.clock_hz, job.cfg->cpu.clock_hz);
    uint64_t macs = 0, kpu_cycles = 0;
    timed_text(job, r, rows, rep.text, macs, kpu_cycles);
    rep.json = report_head(job, false);
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const Row& row : rows) {
        layers.push_back(layer_json(row));
    }
    rep.json["layers"] = layers;
    rep.json["totals"] = {{"macs", macs},
                          {"kpu_cycles", kpu_cycles},
                          {"load_end_ps", r.load_end_ps},
                          {"end_ps", r.end_ps},
                          {"inference_ms", static_cast<double>(r.end_ps - r.load_end_ps) / 1e9},
                          {"cpu_clock_hz", static_cast<double>(job.cfg->cpu.clock_hz)},
                          {"layer_time", time_split(rows, job.cfg->cpu.clock_hz)}};
    rep.json["outputs"] = add_outputs(rep.files, r.outputs);
    if (request.dump_all) {
        rep.json["layer_dumps"] = add_dumps(rep.files, r.dumps);
    }
    if (job.demo != nullptr) {
        add_demo_files(rep.files, *job.demo, job.input, r.outputs);
    }
    if (job.digits != nullptr) {
        rep.json["digits"] = job.digits->summary;
        add_digits_files(rep.files, *job.digits);
    }
    rep.json["stats"] = soc.stats().to_json();
    rep.files_after.push_back({"layers.csv", bytes_of(layers_csv(rows))});
    return rep;
}

}  // namespace npu::k210
