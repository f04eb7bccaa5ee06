// npusim run on the K210 platform: a kmodel and an input through the simulated SoC, the outputs as
// .npy, a per-layer report (report.json, layers.csv), a human summary, and optionally a trace.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platforms/k210/compiler.h"
#include "platforms/k210/demo_model.h"
#include "platforms/k210/driver.h"
#include "platforms/k210/functional.h"
#include "platforms/k210/k210_platform.h"
#include "platforms/k210/kmodel.h"
#include "platforms/k210/kmodel_runtime.h"
#include "sim/app/app.h"
#include "sim/app/embedded.h"
#include "sim/app/platform_loader.h"
#include "sim/app/progress.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/tlm/kernel.h"

namespace npu::app {

namespace {

double us(uint64_t ps) {
    return static_cast<double>(ps) / 1e6;
}

struct Row {
    size_t index;
    std::string type;
    std::string shape;
    uint64_t macs = 0, kpu_cycles = 0, cpu_cycles = 0, weight_bytes = 0, bus_bytes = 0;
    uint64_t start_ps = 0, end_ps = 0;
    double utilization = 0;
};

std::vector<Row> rows_of(const k210::RunResult& r, const kpu::Kpu& kpu) {
    std::vector<Row> rows;
    for (const k210::LayerRun& l : r.layers) {
        Row row{l.index, l.type, "", 0, 0, l.cpu_cycles, 0, l.bus_bytes, l.start_ps, l.end_ps, 0};
        // A v4 kpu_conv2d with batches ran one KPU layer per batch: their sums, and the
        // cycle-weighted utilization.
        double busy = 0;
        for (int b = 0; b < l.kpu_layers; ++b) {
            const size_t at = static_cast<size_t>(l.kpu_layer + b);
            if (l.kpu_layer < 0 || at >= kpu.layers().size()) {
                break;
            }
            const kpu::LayerRecord& k = kpu.layers()[at];
            const kpu::LayerArgs& a = k.args;
            row.shape =
                kpu::shape_summary(a) + (l.kpu_layers > 1 ? fmt::format(" x{}", l.kpu_layers) : "");
            row.macs += k.cost.macs;
            row.kpu_cycles += k.cost.total_cycles;
            row.weight_bytes += k.cost.weight_bytes + k.cost.param_bytes;
            busy += k.cost.utilization() * static_cast<double>(k.cost.total_cycles);
        }
        row.utilization = row.kpu_cycles > 0 ? busy / static_cast<double>(row.kpu_cycles) : 0;
        rows.push_back(row);
    }
    return rows;
}

std::string layers_csv(const std::vector<Row>& rows) {
    std::string s =
        "index,type,shape,macs,kpu_cycles,cpu_cycles,param_bytes,cpu_bus_bytes,start_us,end_us,"
        "utilization\n";
    for (const Row& r : rows) {
        s += fmt::format("{},{},\"{}\",{},{},{},{},{},{:.3f},{:.3f},{:.4f}\n", r.index, r.type,
                         r.shape, r.macs, r.kpu_cycles, r.cpu_cycles, r.weight_bytes, r.bus_bytes,
                         us(r.start_ps), us(r.end_ps), r.utilization);
    }
    return s;
}

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// .npy as it is; an image decoded to RGB and resized (bilinear) to the model's input, saying so.
sim::Tensor read_input(const std::string& path, const sim::Shape& want, std::string& conversion) {
    if (ends_with(path, ".npy")) {
        conversion = "none (.npy used as is)";
        return sim::read_npy(path);
    }
    sim::Tensor img = sim::read_image(path);
    if (want[1] != 3) {
        throw sim::Error(fmt::format("{}: the model expects {} input channels; images give 3 (RGB)",
                                     path, want[1]));
    }
    conversion = fmt::format("decoded to RGB uint8 {}x{}", img.dim(3), img.dim(2));
    if (img.dim(2) != want[2] || img.dim(3) != want[3]) {
        img = sim::resize_bilinear(img, want[2], want[3]);
        conversion += fmt::format(", resized bilinearly to {}x{}", want[3], want[2]);
    }
    conversion += ", NCHW, no normalization (the model's first layer folds its zero point)";
    return img;
}

// The demo's files: the model and input (to rerun with --model/--input), and every map as PNG.
void write_demo_files(sim::OutputDir& out, const k210::DemoModel& m, const sim::Tensor& input,
                      const std::vector<sim::Tensor>& outputs) {
    out.write_bytes("demo.kmodel", m.kmodel);
    out.write_bytes("input.npy", sim::encode_npy(input));
    out.write_bytes("input.png", sim::encode_png(input.bytes(), 3, static_cast<int>(input.dim(2)),
                                                 static_cast<int>(input.dim(3))));
    for (size_t i = 0; i < outputs.size() && i < m.output_shapes.size(); ++i) {
        const sim::Shape& s = m.output_shapes[i];
        const size_t plane = static_cast<size_t>(s[2] * s[3]);
        for (size_t c = 0; c < static_cast<size_t>(s[1]); ++c) {
            const std::vector<uint8_t> gray =
                sim::to_gray8(outputs[i].data<float>() + c * plane, plane, 0.0f, 1.0f);
            out.write_bytes(
                fmt::format("output_{}_{}.png", i, m.channel_names[i][c]),
                sim::encode_png(gray.data(), 1, static_cast<int>(s[2]), static_cast<int>(s[3])));
        }
    }
}

void reshape_demo_outputs(const k210::DemoModel* demo, std::vector<sim::Tensor>& outputs) {
    if (demo != nullptr) {  // v3 outputs are flat; the demo knows its shapes
        for (size_t i = 0; i < outputs.size() && i < demo->output_shapes.size(); ++i) {
            outputs[i].reshape(demo->output_shapes[i]);
        }
    }
}

std::string input_name(const RunOptions& opts) {
    return !opts.input.empty()     ? opts.input
           : !opts.model.empty()   ? ""
           : opts.demo == "digits" ? "<built-in held-out digit 0>"
                                   : "<built-in scene>";
}

nlohmann::ordered_json report_head(const RunOptions& opts, const LoadedPlatform& p,
                                   const k210::Kmodel& model, const sim::Tensor& input,
                                   const std::string& conversion) {
    nlohmann::ordered_json j;
    j["tool"] = "npusim";
    j["version"] = version();
    j["command"] = "run";
    j["mode"] = opts.functional ? "functional" : "timed";
    j["platform"] = {{"kind", "k210"},
                     {"name", p.config.name},
                     {"source", p.source},
                     {"kpu_clock_hz", p.k210->kpu.timing.clock_hz},
                     {"cpu_clock_hz", p.k210->cpu.clock_hz}};
    j["model"] = {{"file", opts.model},
                  {"version", model.version},
                  {"layers", model.layers.size()},
                  {"kpu_layers", model.convs.size()}};
    j["input"] = {{"file", input_name(opts)},
                  {"shape", input.shape()},
                  {"dtype", sim::dtype_name(input.dtype())},
                  {"preprocessing", conversion}};
    return j;
}

nlohmann::ordered_json write_outputs(sim::OutputDir& out, const std::vector<sim::Tensor>& outputs) {
    nlohmann::ordered_json outs = nlohmann::ordered_json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string name = fmt::format("output_{}.npy", i);
        out.write_bytes(name, sim::encode_npy(outputs[i]));
        outs.push_back({{"file", name},
                        {"shape", outputs[i].shape()},
                        {"dtype", sim::dtype_name(outputs[i].dtype())}});
    }
    return outs;
}

// The default job: our digits CNN (platforms/k210/digits, embedded in the binary) compiled for
// the K210, every held-out digit through the functional K210 and the float reference, and one
// digit through the timed platform (by the caller).
struct DigitsDemo {
    k210::CompiledModel compiled;
    sim::Tensor input;  // the digit the timed run uses, quantized
    std::string conversion;
    nlohmann::ordered_json summary;
    std::string predictions_csv;
};

const EmbeddedBlob& blob(const char* name) {
    for (const EmbeddedBlob& b : embedded_digits()) {
        if (std::strcmp(b.name, name) == 0) {
            return b;
        }
    }
    throw sim::Error(std::string("internal: no embedded ") + name);
}

sim::Tensor blob_npy(const char* name) {
    const EmbeddedBlob& b = blob(name);
    return sim::parse_npy(b.data, b.size, std::string("<built-in ") + name + ">");
}

DigitsDemo run_digits(const LoadedPlatform& p) {
    const EmbeddedBlob& model = blob("digits_cnn.onnx");
    const onnx::Graph g =
        onnx::import_model_bytes(std::vector<uint8_t>(model.data, model.data + model.size),
                                 "<built-in digits_cnn.onnx>", {onnx::supported_ops(), true});
    const sim::Tensor calib = blob_npy("calib_images.npy"), images = blob_npy("test_images.npy"),
                      labels = blob_npy("test_labels.npy");
    const std::vector<int64_t> shape{1, 1, 16, 16};
    const size_t per = 256;
    auto sample = [&](const sim::Tensor& t, size_t i) {
        const float* f = t.data<float>() + i * per;
        return onnx::Value::floats(shape, std::vector<float>(f, f + per));
    };
    k210::CompileOptions co;
    co.model_name = "<built-in digits_cnn.onnx>";
    for (size_t i = 0; i < static_cast<size_t>(calib.dim(0)); ++i) {
        co.calibration.push_back({{"image", sample(calib, i)}});
    }
    DigitsDemo d;
    d.compiled = k210::compile_k210(g, co);
    const k210::Kmodel km = k210::parse_kmodel(d.compiled.kmodel, "<built-in digits.kmodel>");
    k210::FunctionalOptions fo;
    fo.fidelity = p.k210->kpu.fidelity;
    fo.fused_multiply_add = p.k210->cpu.fused_multiply_add;
    const auto n = static_cast<size_t>(images.dim(0));
    size_t ok_float = 0, ok_sim = 0, agree = 0;
    d.predictions_csv = "digit,label,float,k210\n";
    std::string table = fmt::format("{:>7} {:>6} {:>6} {:>6}\n", "digit", "label", "float", "K210");
    auto quantized = [&](size_t i) {
        sim::Tensor t(sim::DType::u8, {1, 1, 16, 16});
        const float* f = images.data<float>() + i * per;
        for (size_t k = 0; k < per; ++k) {
            t.data<uint8_t>()[k] = d.compiled.input_q.quantize(static_cast<double>(f[k]));
        }
        return t;
    };
    for (size_t i = 0; i < n; ++i) {
        const std::vector<float> yf =
            onnx::evaluate(g, {{"image", sample(images, i)}}).at("logits").f;
        const k210::FunctionalResult r = k210::run_functional(km, quantized(i), fo);
        const float* ys = r.outputs.at(0).data<float>();
        const auto pf = std::max_element(yf.begin(), yf.end()) - yf.begin();
        const auto ps = std::max_element(ys, ys + 10) - ys;
        const int64_t label = labels.data<int32_t>()[i];
        ok_float += pf == label ? 1u : 0u, ok_sim += ps == label ? 1u : 0u;
        agree += pf == ps ? 1u : 0u;
        d.predictions_csv += fmt::format("{},{},{},{}\n", i, label, pf, ps);
        if (i < 10) {
            table += fmt::format("{:>7} {:>6} {:>6} {:>6}\n", i, label, pf, ps);
        }
    }
    const double dn = static_cast<double>(n);
    fmt::print(
        "npusim {}: the digits CNN of platforms/k210/digits (trained on scikit-learn's "
        "handwritten digits), compiled for the K210:\n\n{}\n",
        version(), k210::compile_report(d.compiled));
    fmt::print("predictions on the held-out digits (first 10 of {}):\n{}", n, table);
    fmt::print(
        "accuracy on {} held-out digits: float {:.2f} % ({}), simulated K210 {:.2f} % ({}); "
        "top-1 agreement {}/{}\n\n",
        n, 100.0 * static_cast<double>(ok_float) / dn, ok_float,
        100.0 * static_cast<double>(ok_sim) / dn, ok_sim, agree, n);
    d.summary = {{"model", "platforms/k210/digits/digits_cnn.onnx"},
                 {"digits", n},
                 {"accuracy_float", static_cast<double>(ok_float) / dn},
                 {"accuracy_k210", static_cast<double>(ok_sim) / dn},
                 {"top1_agreement", static_cast<double>(agree) / dn}};
    d.input = quantized(0);
    d.conversion = fmt::format(
        "held-out digit 0 (label {}): float 0..1 quantized as q = round(x / {:.6g}) + {}",
        labels.data<int32_t>()[0], d.compiled.input_q.scale, d.compiled.input_q.zero_point);
    return d;
}

void write_digits_files(sim::OutputDir& out, const DigitsDemo& d) {
    out.write_bytes("digits.kmodel", d.compiled.kmodel);
    out.write_text("digits.kmodel.json", k210::compile_report_json(d.compiled).dump(2) + "\n");
    out.write_text("predictions.csv", d.predictions_csv);
    out.write_bytes("input.npy", sim::encode_npy(d.input));
}

// --functional: the values only, through the same layer code, with no SystemC and no time.
int run_values_only(const RunOptions& opts, const LoadedPlatform& p, const k210::Kmodel& model,
                    const k210::DemoModel* demo, const sim::Tensor& input,
                    const std::string& conversion, sim::OutputDir* out) {
    k210::FunctionalOptions fo;
    fo.fidelity = p.k210->kpu.fidelity;
    fo.fused_multiply_add = p.k210->cpu.fused_multiply_add;
    Progress progress(opts.progress);
    fo.on_layer = [&](const k210::FunctionalLayer& l, size_t done, size_t total) {
        progress.update(done, total, model.layers[l.index].type_name);
    };
    k210::FunctionalResult r = k210::run_functional(model, input, fo);
    reshape_demo_outputs(demo, r.outputs);
    fmt::print("npusim {}: {} (kmodel v{}), functional run (values only, no timing)\n", version(),
               model.name, model.version);
    fmt::print("input: {} {} ({})\n\n", input_name(opts), sim::shape_str(input.shape()),
               conversion);
    fmt::print("{:>4}  {:<14} {:<30} {:>11} {:>10}\n", "#", "layer", "shape", "MACs", "elements");
    uint64_t macs = 0;
    size_t conv = 0;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const k210::FunctionalLayer& l : r.layers) {
        const k210::KmodelLayer& ml = model.layers[l.index];
        std::string shape;
        if (k210::is_kpu_layer(model.version, ml.type)) {
            shape = kpu::shape_summary(model.convs[conv++].args);
        }
        fmt::print("{:>4}  {:<14} {:<30} {:>11} {:>10}\n", l.index, ml.type_name, shape, l.macs,
                   l.elements);
        layers.push_back({{"index", l.index},
                          {"type", ml.type_name},
                          {"shape", shape},
                          {"macs", l.macs},
                          {"cpu_elements", l.elements},
                          {"overflows", l.overflows}});
        macs += l.macs;
    }
    fmt::print("\nfunctional run: {} layers, {} MACs, {} outputs\n", r.layers.size(), macs,
               r.outputs.size());
    if (out != nullptr) {
        nlohmann::ordered_json j = report_head(opts, p, model, input, conversion);
        j["layers"] = layers;
        j["totals"] = {{"macs", macs}};
        j["outputs"] = write_outputs(*out, r.outputs);
        if (demo != nullptr) {
            write_demo_files(*out, *demo, input, r.outputs);
        }
        out->write_text("report.json", j.dump(2) + "\n");
        out->commit();
        fmt::print("wrote {} to {}\n", fmt::join(out->files(), ", "), out->dir().string());
    }
    return kExitOk;
}

}  // namespace

int cmd_run_k210(const RunOptions& opts, const LoadedPlatform& p) {
    // (cmd_run has checked the options every platform shares, e.g. --trace needs --out.)
    // No --model: a bundled job. `--demo digits` (default): our digits CNN compiled from ONNX;
    // `--demo edges`: a blur/Sobel network written with our kmodel writer, on a synthetic scene.
    if (opts.model.empty() && opts.demo != "digits" && opts.demo != "edges") {
        throw sim::Error(fmt::format("--demo {}: expected digits or edges", opts.demo));
    }
    const bool digits = opts.model.empty() && opts.demo == "digits";
    const bool demo = opts.model.empty() && opts.demo == "edges";
    if (!opts.model.empty() && opts.input.empty()) {
        throw sim::Error(
            "--model needs --input FILE (.npy uint8 NCHW, or an image: PNG, JPEG, BMP)");
    }
    std::unique_ptr<sim::OutputDir> out;  // first: a bad --out fails before any work
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    std::unique_ptr<DigitsDemo> dd = digits ? std::make_unique<DigitsDemo>(run_digits(p)) : nullptr;
    const k210::DemoModel demo_model = demo ? k210::build_demo_model() : k210::DemoModel{};
    const k210::Kmodel model =
        digits ? k210::parse_kmodel(dd->compiled.kmodel, "<built-in digits.kmodel>")
        : demo ? k210::parse_kmodel(demo_model.kmodel, "<built-in demo.kmodel>")
               : k210::load_kmodel(opts.model);
    std::string conversion = digits ? dd->conversion : "none (built-in scene)";
    const sim::Tensor input =
        digits               ? dd->input
        : opts.input.empty() ? demo_model.input
                             : read_input(opts.input, k210::model_input_shape(model), conversion);
    if (opts.functional) {
        if (digits && out) {
            write_digits_files(*out, *dd);
        }
        return run_values_only(opts, p, model, demo ? &demo_model : nullptr, input, conversion,
                               out.get());
    }
    sim::install_report_handler({}, opts.verbose);
    sim::TraceWriter trace(opts.trace);
    k210::K210Platform soc("k210", *p.k210, trace);
    k210::K210Driver driver("driver", soc, trace);
    driver.load(model, input);
    Progress progress(opts.progress);
    driver.on_layer([&](const k210::LayerRun& l, size_t done, size_t total) {
        progress.update(done, total, l.type);
    });
    sc_core::sc_start();
    k210::RunResult r = driver.result();
    reshape_demo_outputs(demo ? &demo_model : nullptr, r.outputs);
    if (!r.error.empty()) {
        throw sim::Error(r.error);
    }
    if (!r.done) {
        throw sim::Error("the driver did not finish (a layer never completed)");
    }

    const std::vector<Row> rows = rows_of(r, soc.kpu);
    const double cpu_hz = static_cast<double>(p.k210->cpu.clock_hz);
    fmt::print("npusim {}: {} (kmodel v{}) on {} ({})\n", version(), model.name, model.version,
               p.config.name, p.source);
    fmt::print("input: {} {} ({})\n\n", input_name(opts), sim::shape_str(input.shape()),
               conversion);
    fmt::print("{:>4}  {:<14} {:<30} {:>11} {:>10} {:>10} {:>6}\n", "#", "layer", "shape", "MACs",
               "KPU cyc", "time us", "util");
    uint64_t macs = 0, kpu_cycles = 0;
    for (const Row& row : rows) {
        fmt::print("{:>4}  {:<14} {:<30} {:>11} {:>10} {:>10.1f} {:>5.0f}%\n", row.index, row.type,
                   row.shape, row.macs, row.kpu_cycles, us(row.end_ps - row.start_ps),
                   row.utilization * 100);
        macs += row.macs;
        kpu_cycles += row.kpu_cycles;
    }
    const double inference_ms = static_cast<double>(r.end_ps - r.load_end_ps) / 1e9;
    fmt::print("\ninference: {:.3f} ms ({} layers, {} MACs, {} KPU cycles at {}), {} outputs\n",
               inference_ms, rows.size(), macs, kpu_cycles,
               sim::format_frequency(p.k210->kpu.timing.clock_hz), r.outputs.size());

    if (out) {
        nlohmann::ordered_json j = report_head(opts, p, model, input, conversion);
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (const Row& row : rows) {
            layers.push_back({{"index", row.index},
                              {"type", row.type},
                              {"shape", row.shape},
                              {"macs", row.macs},
                              {"kpu_cycles", row.kpu_cycles},
                              {"cpu_cycles", row.cpu_cycles},
                              {"param_bytes", row.weight_bytes},
                              {"cpu_bus_bytes", row.bus_bytes},
                              {"start_ps", row.start_ps},
                              {"end_ps", row.end_ps},
                              {"utilization", row.utilization}});
        }
        j["layers"] = layers;
        j["totals"] = {
            {"macs", macs},       {"kpu_cycles", kpu_cycles},     {"load_end_ps", r.load_end_ps},
            {"end_ps", r.end_ps}, {"inference_ms", inference_ms}, {"cpu_clock_hz", cpu_hz}};
        j["outputs"] = write_outputs(*out, r.outputs);
        if (demo) {
            write_demo_files(*out, demo_model, input, r.outputs);
        }
        if (digits) {
            j["digits"] = dd->summary;
            write_digits_files(*out, *dd);
        }
        j["stats"] = soc.stats().to_json();
        out->write_text("report.json", j.dump(2) + "\n");
        out->write_text("layers.csv", layers_csv(rows));
        if (opts.trace) {
            out->write_text("trace.json", trace.dump() + "\n");
        }
        out->commit();
        fmt::print("wrote {} to {}\n", fmt::join(out->files(), ", "), out->dir().string());
    }
    return kExitOk;
}

}  // namespace npu::app
