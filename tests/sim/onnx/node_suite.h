// One official ONNX backend test (a directory with model.onnx and
// test_data_set_*/{input,output}_N.pb) run on the reference evaluator and compared at ONNX's
// tolerances. Shared by the node-test suites (test_onnx_node_tests.cpp) and their wall-time
// benchmark (tests/bench/bench_onnx.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::test::node_suite {

namespace fs = std::filesystem;
inline const char* kDataDir = "/usr/share/libonnx-testdata/data";

inline std::vector<fs::path> sorted(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().filename().string().rfind(prefix, 0) == 0) {
            v.push_back(e.path());
        }
    }
    std::sort(v.begin(), v.end());
    return v;
}

// The N in input_N.pb, so that input_10 follows input_9.
inline std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> v = sorted(dir, prefix);
    std::sort(v.begin(), v.end(), [&](const fs::path& a, const fs::path& b) {
        return std::stoi(a.stem().string().substr(prefix.size())) <
               std::stoi(b.stem().string().substr(prefix.size()));
    });
    return v;
}

inline std::string compare(const onnx::Value& got, const onnx::Value& want) {
    if (got.shape != want.shape) {
        return "shape differs";
    }
    if (want.is_int()) {
        std::vector<int64_t> g = got.i;
        if (!got.is_int()) {
            g.clear();
            for (float f : got.f) {
                g.push_back(static_cast<int64_t>(f));
            }
        }
        return g == want.i ? "" : "integer values differ";
    }
    if (got.is_int()) {
        return "integer output where float was expected";
    }
    for (size_t k = 0; k < want.f.size(); ++k) {
        const double w = want.f[k], g = got.f[k];
        if ((std::isnan(w) && std::isnan(g)) || w == g) {  // NaN = NaN, inf = inf (as numpy)
            continue;
        }
        if (!(std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w))) {
            std::ostringstream s;
            s << "element " << k << ": " << g << " vs " << w;
            return s.str();
        }
    }
    return "";
}

// "pass", "skip" (an op the evaluator does not have), or "fail: why".
inline std::string run_one(const fs::path& dir) {
    onnx::Graph g;
    try {
        onnx::ImportOptions o;
        o.supported_ops = onnx::supported_ops();
        g = onnx::import_model((dir / "model.onnx").string(), o);
    } catch (const sim::Error& e) {
        const std::string what = e.what();
        // An op we do not have, or a model older than the opsets we read (6..17).
        return what.find("unsupported ops") != std::string::npos ||
                       what.find("default-domain opset") != std::string::npos
                   ? "skip"
                   : "fail: " + what;
    }
    for (const fs::path& set : sorted(dir, "test_data_set_")) {
        std::map<std::string, onnx::Value> inputs;
        const std::vector<fs::path> in = numbered(set, "input_");
        try {
            for (size_t i = 0; i < in.size() && i < g.inputs.size(); ++i) {
                inputs[g.inputs[i].name] = onnx::read_tensor_file(in[i].string());
            }
            const std::map<std::string, onnx::Value> out = onnx::evaluate(g, inputs);
            const std::vector<fs::path> exp = numbered(set, "output_");
            for (size_t i = 0; i < exp.size() && i < g.outputs.size(); ++i) {
                const std::string why =
                    compare(out.at(g.outputs[i].name), onnx::read_tensor_file(exp[i].string()));
                if (!why.empty()) {
                    return "fail: output " + std::to_string(i) + ": " + why;
                }
            }
        } catch (const std::exception& e) {
            return std::string("fail: ") + e.what();
        }
    }
    return "pass";
}

}  // namespace npu::test::node_suite
