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
    std::vector<sim::Part> kpu_parts{};  // LayerCost::parts(), summed over a layer's batches
    uint64_t cpu_work = 0, cpu_overhead = 0, readback = 0;  // CPU cycles
    uint64_t kpu_ps = 0, cpu_ps = 0, bus_dma_ps = 0;        // wall time split
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
        for (const auto& [name, zero] : kpu::LayerCost{}.parts()) {  // CPU layers: all 0
            row.kpu_parts.push_back({name, zero});
        }
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
            const auto parts = k.cost.parts();
            for (size_t i = 0; i < parts.size(); ++i) {
                row.kpu_parts[i].cycles += parts[i].second;
            }
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

// One layer of the record: where its wall time went, by engine, with the cycle parts each
// engine's time splits into (docs/k210_platform.md).
sim::LayerRecord layer_record(const Row& row, uint64_t kpu_hz, uint64_t cpu_hz) {
    sim::LayerRecord l{row.index,    row.type,   row.shape, row.macs, row.weight_bytes,
                       row.start_ps, row.end_ps, {},        {},       ""};
    l.engines.push_back({"KPU", row.kpu_ps, "kpu", static_cast<double>(kpu_hz), row.kpu_parts});
    l.engines.push_back(
        {"CPU",
         row.cpu_ps,
         "cpu",
         static_cast<double>(cpu_hz),
         {{"work", row.cpu_work}, {"read-back", row.readback}, {"runtime", row.cpu_overhead}}});
    l.engines.push_back({"bus and DMA", row.bus_dma_ps, "", 0, {}});
    l.measures = {{"kpu_cycles", static_cast<double>(row.kpu_cycles), "cycles"},
                  {"cpu_cycles", static_cast<double>(row.cpu_cycles), "cycles"},
                  {"cpu_bus_bytes", static_cast<double>(row.bus_bytes), "bytes"},
                  {"utilization", row.utilization, ""}};
    return l;
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

sim::RunRecord record_head(const K210Job& job, bool functional) {
    sim::RunRecord r;
    r.command = "run";
    r.mode = functional ? "functional" : "timed";
    const double kpu_hz = static_cast<double>(job.cfg->kpu.timing.clock_hz);
    r.platform = {"k210",
                  job.cfg->platform.name,
                  job.source,
                  {{"kpu_clock_hz", kpu_hz, "Hz"},
                   {"cpu_clock_hz", static_cast<double>(job.cfg->cpu.clock_hz), "Hz"},
                   // The roofline's: 576 multipliers × 2 ops per cycle, and the KPU's
                   // parameter-fetch port (bytes per beat × its clock).
                   {"peak_ops_per_s", 2.0 * 576 * kpu_hz, "ops/s"},
                   {"peak_bytes_per_s",
                    static_cast<double>(job.cfg->kpu.timing.bus.data_width_bytes) *
                        static_cast<double>(job.cfg->kpu.timing.bus.clock_hz),
                    "bytes/s"}}};
    r.program = {job.model_file,
                 fmt::format("kmodel v{}", job.model.version),
                 {{"layers", static_cast<double>(job.model.layers.size()), "layers"},
                  {"kpu_layers", static_cast<double>(job.model.convs.size()), "layers"}}};
    std::vector<int64_t> shape(job.input.shape().begin(), job.input.shape().end());
    r.inputs.push_back({"input", job.input_name, shape, sim::dtype_name(job.input.dtype()),
                        job.conversion, "", std::nullopt});
    return r;
}

// The outputs as output_<i>.npy, and their entries of the record.
void add_outputs(std::vector<OutputFile>& files, sim::RunRecord& rec,
                 const std::vector<sim::Tensor>& outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string name = fmt::format("output_{}.npy", i);
        files.push_back({name, sim::encode_npy(outputs[i])});
        rec.outputs.push_back(
            {fmt::format("output {}", i), name,
             std::vector<int64_t>(outputs[i].shape().begin(), outputs[i].shape().end()),
             sim::dtype_name(outputs[i].dtype()), "", "", std::nullopt});
    }
}

// --dump-all: each layer's result as layer_<index>_<type>.npy, and its entry with the SHA-256 of
// the tensor's bytes (the .npy payload, little-endian).
void add_dumps(std::vector<OutputFile>& files, sim::RunRecord& rec,
               const std::vector<LayerDump>& dumps) {
    for (const LayerDump& d : dumps) {
        files.push_back({d.file, sim::encode_npy(d.tensor)});
        rec.dumps.push_back({d.type, d.file,
                             std::vector<int64_t>(d.tensor.shape().begin(), d.tensor.shape().end()),
                             sim::dtype_name(d.tensor.dtype()), d.where,
                             sim::sha256_hex(d.tensor.bytes(), d.tensor.size_bytes()), d.index});
    }
}

FunctionalOptions functional_options(const K210Job& job) {
    FunctionalOptions fo;
    fo.fidelity = job.cfg->kpu.fidelity;
    fo.fused_multiply_add = job.cfg->cpu.fused_multiply_add;
    return fo;
}

// The values-only run's layer table (text) and record entries.
std::vector<sim::LayerRecord> values_only_layers(const K210Job& job, const FunctionalResult& r,
                                                 std::string& text, uint64_t& macs) {
    auto it = std::back_inserter(text);
    fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10}\n", "#", "layer", "shape", "MACs",
                   "elements");
    size_t conv = 0;
    std::vector<sim::LayerRecord> layers;
    for (const FunctionalLayer& l : r.layers) {
        const KmodelLayer& ml = job.model.layers[l.index];
        std::string shape;
        uint64_t param_bytes = 0;  // as the timed run's KPU fetches them (kpu_cost.h)
        if (is_kpu_layer(job.model.version, ml.type)) {
            const KpuConvLayer& c = job.model.convs[conv++];
            shape = kpu::shape_summary(c.args);
            const kpu::LayerCost cost =
                kpu::layer_cost(c.args, job.model.eight_bit, job.cfg->kpu.timing);
            param_bytes =
                (cost.weight_bytes + cost.param_bytes) * (job.model.version == 4 ? c.batches : 1);
        }
        fmt::format_to(it, "{:>4}  {:<14} {:<30} {:>11} {:>10}\n", l.index, ml.type_name, shape,
                       l.macs, l.elements);
        layers.push_back({l.index,
                          ml.type_name,
                          shape,
                          l.macs,
                          param_bytes,
                          std::nullopt,
                          std::nullopt,
                          {},
                          {{"cpu_elements", static_cast<double>(l.elements), "elements"},
                           {"overflows", static_cast<double>(l.overflows), "values"}},
                          ""});
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
    std::vector<sim::LayerRecord> layers = values_only_layers(job, r, rep.text, macs);
    fmt::format_to(it, "\nfunctional run: {} layers, {} MACs, {} outputs\n", r.layers.size(), macs,
                   r.outputs.size());
    sim::RunRecord rec = record_head(job, true);
    rec.layers = std::move(layers);
    rec.totals = {{"macs", static_cast<double>(macs), "MAC"}};
    add_outputs(rep.files, rec, r.outputs);
    if (request.dump_all) {
        add_dumps(rep.files, rec, r.dumps);
    }
    if (job.digits != nullptr) {
        rec.extra["digits"] = job.digits->summary;
    }
    rep.record = std::move(rec);
    if (job.demo != nullptr) {
        add_demo_files(rep.files, *job.demo, job.input, r.outputs);
    }
    return rep;
}

namespace {

// The timed run's summary: one line per kmodel layer, then the inference time, then the record's
// engines summed (KPU, CPU by its parts, bus and DMA).
void timed_text(const K210Job& job, const RunResult& r, const std::vector<Row>& rows,
                const std::vector<sim::EngineTime>& engines, std::string& text) {
    uint64_t macs = 0, kpu_cycles = 0;
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
    const auto ms = [&](uint64_t cpu_cycles) {
        return static_cast<double>(cycles_ps(cpu_cycles, job.cfg->cpu.clock_hz)) / 1e9;
    };
    const std::vector<sim::Part>& cpu = engines[1].parts;  // work, read-back, runtime
    fmt::format_to(it,
                   "layer time: KPU {:.3f} ms, CPU {:.3f} ms (work {:.3f}, read-back {:.3f}, "
                   "runtime {:.3f}), bus and DMA {:.3f} ms\n",
                   static_cast<double>(engines[0].ps) / 1e9,
                   ms(cpu[0].cycles) + ms(cpu[1].cycles) + ms(cpu[2].cycles), ms(cpu[0].cycles),
                   ms(cpu[1].cycles), ms(cpu[2].cycles), static_cast<double>(engines[2].ps) / 1e9);
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
    sim::RunRecord rec = record_head(job, false);
    uint64_t macs = 0, kpu_cycles = 0;
    for (const Row& row : rows) {
        rec.layers.push_back(
            layer_record(row, job.cfg->kpu.timing.clock_hz, job.cfg->cpu.clock_hz));
        macs += row.macs, kpu_cycles += row.kpu_cycles;
    }
    timed_text(job, r, rows, sim::engine_totals(rec), rep.text);
    rec.totals = {{"macs", static_cast<double>(macs), "MAC"},
                  {"kpu_cycles", static_cast<double>(kpu_cycles), "cycles"},
                  {"load_end_ps", static_cast<double>(r.load_end_ps), "ps"},
                  {"end_ps", static_cast<double>(r.end_ps), "ps"},
                  {"inference_ms", static_cast<double>(r.end_ps - r.load_end_ps) / 1e9, "ms"}};
    add_outputs(rep.files, rec, r.outputs);
    if (request.dump_all) {
        add_dumps(rep.files, rec, r.dumps);
    }
    if (job.demo != nullptr) {
        add_demo_files(rep.files, *job.demo, job.input, r.outputs);
    }
    if (job.digits != nullptr) {
        rec.extra["digits"] = job.digits->summary;
        add_digits_files(rep.files, *job.digits);
    }
    rec.stats = soc.stats().to_json();
    rep.record = std::move(rec);
    return rep;
}

}  // namespace npu::k210
