// Our ONNX reference evaluator and OpenCV DNN side by side, in one process, on the same models
// and the same input (release build):
//   build/release/tests/npusim_bench_onnx_peer [--threads N] [--repeat R] [model.onnx ...]
// Default models: the digits CNN, the PyTorch-exported fallback CNN, the 320x240
// MobileNet-style detector (scripts/export_bench_detector.py), and three models exported with
// every BatchNormalization kept (scripts/export_bench_models.py: MobileNetV2-style, ResNet-style,
// the detector). Both engines get N threads (default
// 1: the single-thread comparison). Prints per model the median wall time of R runs of each, the
// ratio ours/OpenCV, the largest output difference, and the process's peak resident memory after
// each engine ran (VmHWM; ours runs first, so its figure is ours alone). Benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include "sim/core/parallel.h"
#include "sim/core/simd.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace {

using Clock = std::chrono::steady_clock;

long peak_rss_kib() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

// OpenCV 4.6 reads Clip only in its opset-6 form (bounds as attributes), while PyTorch exports the
// opset-11 form (bounds as inputs, from Constant nodes). Rewrites those Clips for OpenCV; the
// model evaluated by ours stays the file as it is.
std::string for_opencv(const std::string& path) {
    ::onnx::ModelProto m;
    std::ifstream in(path, std::ios::binary);
    if (!m.ParseFromIstream(&in)) {
        throw std::runtime_error(path + ": not an ONNX model");
    }
    std::map<std::string, float> constants;
    for (const ::onnx::NodeProto& n : m.graph().node()) {
        if (n.op_type() == "Constant" && n.attribute_size() == 1 && n.attribute(0).has_t() &&
            (n.attribute(0).t().float_data_size() > 0 || !n.attribute(0).t().raw_data().empty())) {
            const ::onnx::TensorProto& t = n.attribute(0).t();
            float v = 0;
            if (t.float_data_size() > 0) {
                v = t.float_data(0);
            } else if (t.raw_data().size() == sizeof v) {
                std::memcpy(&v, t.raw_data().data(), sizeof v);
            }
            constants[n.output(0)] = v;
        }
    }
    for (::onnx::NodeProto& n : *m.mutable_graph()->mutable_node()) {
        if (n.op_type() != "Clip" || n.input_size() == 1) {
            continue;
        }
        const char* names[] = {"", "min", "max"};
        for (int k = 1; k < n.input_size(); ++k) {
            if (!n.input(k).empty() && constants.count(n.input(k)) != 0) {
                ::onnx::AttributeProto* a = n.add_attribute();
                a->set_name(names[k]);
                a->set_type(::onnx::AttributeProto::FLOAT);
                a->set_f(constants[n.input(k)]);
            }
        }
        n.mutable_input()->DeleteSubrange(1, n.input_size() - 1);  // NOLINT
    }
    return m.SerializeAsString();
}

template <typename F>
double median_ms(int repeat, F&& f) {
    f();  // warm-up (first-touch allocations, OpenCV's layer setup)
    std::vector<double> ms;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = Clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

void compare(const std::string& path, int repeat) {
    const npu::onnx::Graph g = npu::onnx::import_model(path, {npu::onnx::supported_ops(), true});
    const npu::onnx::ValueInfo& in = g.inputs.at(0);
    std::vector<float> x(1);
    for (int64_t d : in.shape) {
        x.resize(x.size() * static_cast<size_t>(std::max<int64_t>(d, 1)));
    }
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& v : x) {
        v = u(rng);
    }
    const std::map<std::string, npu::onnx::Value> inputs{
        {in.name, npu::onnx::Value::floats(in.shape, x)}};
    std::map<std::string, npu::onnx::Value> ours;
    const double ours_ms = median_ms(repeat, [&] { ours = npu::onnx::evaluate(g, inputs); });
    const long ours_rss = peak_rss_kib();

    const std::string model = for_opencv(path);
    cv::dnn::Net net = cv::dnn::readNetFromONNX(model.data(), model.size());
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    std::vector<int> dims;
    for (int64_t d : in.shape) {
        dims.push_back(static_cast<int>(std::max<int64_t>(d, 1)));
    }
    cv::Mat blob(static_cast<int>(dims.size()), dims.data(), CV_32F, x.data());
    std::vector<std::string> names;
    for (const npu::onnx::ValueInfo& o : g.outputs) {
        names.push_back(o.name);
    }
    std::vector<cv::Mat> theirs;
    const double cv_ms = median_ms(repeat, [&] {
        net.setInput(blob);
        net.forward(theirs, names);
    });
    const long both_rss = peak_rss_kib();

    double worst = 0;
    for (size_t k = 0; k < names.size() && k < theirs.size(); ++k) {
        const npu::onnx::Value& v = ours.at(names[k]);
        const cv::Mat m = theirs[k].isContinuous() ? theirs[k] : theirs[k].clone();
        if (m.total() != v.f.size()) {
            worst = INFINITY;  // a shape disagreement
            continue;
        }
        for (size_t i = 0; i < v.f.size(); ++i) {
            worst = std::max(worst, std::abs(double{m.ptr<float>()[i]} - double{v.f[i]}));
        }
    }
    const std::string name = path.substr(path.find_last_of('/') + 1);
    fmt::print("{:<26} {:>4} {:>10.2f} {:>10.2f} {:>7.2f}x {:>10.2g} {:>9} {:>9}\n", name,
               g.nodes.size(), ours_ms, cv_ms, ours_ms / cv_ms, worst, ours_rss / 1024,
               both_rss / 1024);
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 1, repeat = 7;
    std::vector<std::string> models;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else {
            models.emplace_back(argv[i]);
        }
    }
    if (models.empty()) {
        models = {NPUSIM_SOURCE_DIR "/platforms/k210/digits/digits_cnn.onnx",
                  NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/fallback_cnn.onnx",
                  NPUSIM_SOURCE_DIR "/tests/bench/data/mobilenet_detector.onnx",
                  NPUSIM_SOURCE_DIR "/tests/bench/data/mobilenetv2_bn.onnx",
                  NPUSIM_SOURCE_DIR "/tests/bench/data/resnet_bn.onnx",
                  NPUSIM_SOURCE_DIR "/tests/bench/data/detector_bn.onnx",
                  NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/ultraface_slim_320.onnx",
                  NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/ultraface_rfb_320.onnx"};
    }
    npu::sim::set_threads(threads);
    cv::setNumThreads(threads);
    fmt::print(
        "threads {}, SIMD {}, median of {} runs (ms); peak RSS in MiB after ours, after both\n",
        threads, npu::sim::to_string(npu::sim::simd_level()), repeat);
    fmt::print("{:<26} {:>4} {:>10} {:>10} {:>8} {:>10} {:>9} {:>9}\n", "model", "nodes", "ours",
               "OpenCV", "ratio", "max|diff|", "RSS ours", "RSS both");
    try {
        for (const std::string& m : models) {
            compare(m, repeat);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "npusim_bench_onnx_peer: %s\n", e.what());
        return 1;
    }
    return 0;
}
