#include "platforms/k210/digits_demo.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "platforms/k210/digits/digits_data.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"
#include "sim/core/json_text.h"
#include "sim/core/npy.h"
#include "sim/core/parallel.h"
#include "sim/core/version.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::k210 {

namespace {

constexpr size_t kPixels = 256;  // 1x1x16x16

const DigitsBlob& blob(const char* name) {
    for (const DigitsBlob& b : digits_data()) {
        if (std::strcmp(b.name, name) == 0) {
            return b;
        }
    }
    throw sim::Error(std::string("internal: no embedded ") + name);
}

sim::Tensor blob_npy(const char* name) {
    const DigitsBlob& b = blob(name);
    return sim::parse_npy(b.data, b.size, std::string("<built-in ") + name + ">");
}

onnx::Value sample(const sim::Tensor& t, size_t i) {
    const float* f = t.data<float>() + i * kPixels;
    return onnx::Value::floats({1, 1, 16, 16}, std::vector<float>(f, f + kPixels));
}

sim::Tensor quantized(const sim::Tensor& images, size_t i, const QuantParams& q) {
    sim::Tensor t(sim::DType::u8, {1, 1, 16, 16});
    const float* f = images.data<float>() + i * kPixels;
    for (size_t k = 0; k < kPixels; ++k) {
        t.data<uint8_t>()[k] = q.quantize(static_cast<double>(f[k]));
    }
    return t;
}

struct Tally {
    size_t n = 0, ok_float = 0, ok_sim = 0, agree = 0;
    std::string table;
};

// Every held-out digit on the float reference and the functional K210.
Tally score(const onnx::Graph& g, const Kmodel& km, DigitsDemo& d, const K210Config& cfg) {
    const sim::Tensor images = blob_npy("test_images.npy"), labels = blob_npy("test_labels.npy");
    FunctionalOptions fo;
    fo.fidelity = cfg.kpu.fidelity;
    fo.fused_multiply_add = cfg.cpu.fused_multiply_add;
    Tally t;
    t.table = fmt::format("{:>7} {:>6} {:>6} {:>6}\n", "digit", "label", "float", "K210");
    d.predictions_csv = "digit,label,float,k210\n";
    t.n = static_cast<size_t>(images.dim(0));
    // Both engines' top-1 per digit, the digits spread over the threads, tallied in order.
    struct Top {
        int64_t float_top = 0, sim_top = 0;
    };
    const std::vector<Top> tops = sim::parallel_map<Top>(t.n, [&](size_t i) {
        const std::vector<float> yf =
            onnx::evaluate(g, {{"image", sample(images, i)}}).at("logits").f;
        const FunctionalResult r = run_functional(km, quantized(images, i, d.compiled.input_q), fo);
        const float* ys = r.outputs.at(0).data<float>();
        return Top{std::max_element(yf.begin(), yf.end()) - yf.begin(),
                   std::max_element(ys, ys + 10) - ys};
    });
    for (size_t i = 0; i < t.n; ++i) {
        const int64_t pf = tops[i].float_top, ps = tops[i].sim_top;
        const int64_t label = labels.data<int32_t>()[i];
        t.ok_float += pf == label ? 1u : 0u, t.ok_sim += ps == label ? 1u : 0u;
        t.agree += pf == ps ? 1u : 0u;
        d.predictions_csv += fmt::format("{},{},{},{}\n", i, label, pf, ps);
        if (i < 10) {
            t.table += fmt::format("{:>7} {:>6} {:>6} {:>6}\n", i, label, pf, ps);
        }
    }
    d.input = quantized(images, 0, d.compiled.input_q);
    d.conversion = fmt::format(
        "held-out digit 0 (label {}): float 0..1 quantized as q = round(x / {:.6g}) + {}",
        labels.data<int32_t>()[0], d.compiled.input_q.scale, d.compiled.input_q.zero_point);
    return t;
}

}  // namespace

DigitsDemo run_digits(const K210Config& cfg) {
    const DigitsBlob& model = blob("digits_cnn.onnx");
    const onnx::Graph g =
        onnx::import_model_bytes(std::vector<uint8_t>(model.data, model.data + model.size),
                                 "<built-in digits_cnn.onnx>", {onnx::supported_ops(), true});
    const sim::Tensor calib = blob_npy("calib_images.npy");
    CompileOptions co;
    co.model_name = "<built-in digits_cnn.onnx>";
    for (size_t i = 0; i < static_cast<size_t>(calib.dim(0)); ++i) {
        co.calibration.push_back({{"image", sample(calib, i)}});
    }
    DigitsDemo d;
    d.compiled = compile_k210(g, co);
    const Kmodel km = parse_kmodel(d.compiled.kmodel, "<built-in digits.kmodel>");
    const Tally t = score(g, km, d, cfg);
    const size_t n = t.n;
    const double dn = static_cast<double>(n);
    auto it = std::back_inserter(d.text);
    fmt::format_to(it,
                   "npusim {}: the digits CNN of platforms/k210/digits (trained on scikit-learn's "
                   "handwritten digits), compiled for the K210:\n\n{}\n",
                   sim::npusim_version(), compile_report(d.compiled));
    fmt::format_to(it, "predictions on the held-out digits (first 10 of {}):\n{}", n, t.table);
    fmt::format_to(
        it,
        "accuracy on {} held-out digits: float {:.2f} % ({}), simulated K210 {:.2f} % ({}); "
        "top-1 agreement {}/{}\n\n",
        n, 100.0 * static_cast<double>(t.ok_float) / dn, t.ok_float,
        100.0 * static_cast<double>(t.ok_sim) / dn, t.ok_sim, t.agree, n);
    d.summary = {{"model", "platforms/k210/digits/digits_cnn.onnx"},
                 {"digits", n},
                 {"accuracy_float", static_cast<double>(t.ok_float) / dn},
                 {"accuracy_k210", static_cast<double>(t.ok_sim) / dn},
                 {"top1_agreement", static_cast<double>(t.agree) / dn}};
    return d;
}

void add_digits_files(std::vector<platform::OutputFile>& files, const DigitsDemo& d) {
    const std::string report = sim::json_text(compile_report_json(d.compiled), 2) + "\n";
    const std::string& csv = d.predictions_csv;
    files.push_back({"digits.kmodel", d.compiled.kmodel});
    files.push_back({"digits.kmodel.json", {report.begin(), report.end()}});
    files.push_back({"predictions.csv", {csv.begin(), csv.end()}});
    files.push_back({"input.npy", sim::encode_npy(d.input)});
}

}  // namespace npu::k210
