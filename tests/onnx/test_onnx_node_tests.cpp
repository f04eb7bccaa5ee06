// The reference evaluator on the official ONNX backend node tests shipped by Debian's
// libonnx-testdata (/usr/share/libonnx-testdata/data/node/test_*: model.onnx and
// test_data_set_*/{input,output}_N.pb): every test whose ops the evaluator supports runs and is
// compared with the expected outputs at ONNX's tolerances (rtol 1e-3, atol 1e-7; integer outputs
// exactly). tests/onnx/node_tests_expected.txt records each test's outcome (pass, fail, skip:
// an unsupported op or an opset before 6); a test expected to pass that does not fails this test,
// so a regression shows up; the pytorch-converted and pytorch-operator suites likewise.
// NPUSIM_WRITE_NODE_EXPECTED=<dir> writes the current outcomes there; NPUSIM_NODE_TESTS_VERBOSE=1
// prints why each failing test fails.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::test {
namespace {

namespace fs = std::filesystem;
const char* kDataDir = "/usr/share/libonnx-testdata/data";

std::vector<fs::path> sorted(const fs::path& dir, const std::string& prefix) {
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
std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> v = sorted(dir, prefix);
    std::sort(v.begin(), v.end(), [&](const fs::path& a, const fs::path& b) {
        return std::stoi(a.stem().string().substr(prefix.size())) <
               std::stoi(b.stem().string().substr(prefix.size()));
    });
    return v;
}

std::string compare(const onnx::Value& got, const onnx::Value& want) {
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
std::string run_one(const fs::path& dir) {
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

// Runs every test of one suite directory against its expectation file.
void run_suite(const std::string& suite, const std::string& expected_file, int min_passed) {
    const std::string dir_path = std::string(kDataDir) + "/" + suite;
    if (!fs::exists(dir_path)) {
        GTEST_SKIP() << dir_path << " is absent (install libonnx-testdata)";
    }
    std::map<std::string, std::string> expected;
    {
        std::ifstream in(std::string(NPUSIM_SOURCE_DIR "/tests/onnx/") + expected_file);
        std::string name, outcome;
        while (in >> name >> outcome) {
            if (name[0] != '#') {
                expected[name] = outcome;
            } else {
                std::getline(in, name);
            }
        }
    }
    int passed = 0, failed = 0, skipped = 0, regressions = 0;
    std::ostringstream current;
    for (const fs::path& dir : sorted(dir_path, "test_")) {
        const std::string name = dir.filename().string();
        const std::string r = run_one(dir);
        if (std::getenv("NPUSIM_NODE_TESTS_VERBOSE") != nullptr && r != "pass" && r != "skip") {
            std::printf("%s: %s\n", name.c_str(), r.c_str());
        }
        const std::string outcome = r.rfind("fail", 0) == 0 ? "fail" : r;
        (outcome == "pass" ? passed : outcome == "skip" ? skipped : failed)++;
        current << name << " " << outcome << "\n";
        auto it = expected.find(name);
        if (it != expected.end() && it->second == "pass" && outcome != "pass") {
            ++regressions;
            ADD_FAILURE() << name << ": expected to pass, got " << r;
        }
    }
    std::printf("ONNX %s tests: %d passed / %d failed / %d skipped (unsupported op)\n",
                suite.c_str(), passed, failed, skipped);
    if (const char* out = std::getenv("NPUSIM_WRITE_NODE_EXPECTED")) {
        std::ofstream(std::string(out) + "/" + expected_file)
            << "# test outcome (pass, fail, skip) of the ONNX " << suite << " tests, written by\n"
            << "# NPUSIM_WRITE_NODE_EXPECTED=<dir> npusim_onnx_tests\n"
            << current.str();
    }
    EXPECT_EQ(regressions, 0);
    EXPECT_GE(passed, min_passed);
}

TEST(OnnxNodeTests, EverySupportedTestMatchesItsExpectedOutputs) {
    run_suite("node", "node_tests_expected.txt", 227);
}

TEST(OnnxNodeTests, PytorchConvertedSuite) {
    run_suite("pytorch-converted", "pytorch_converted_expected.txt", 64);
}

TEST(OnnxNodeTests, PytorchOperatorSuite) {
    run_suite("pytorch-operator", "pytorch_operator_expected.txt", 22);
}

}  // namespace
}  // namespace npu::test
