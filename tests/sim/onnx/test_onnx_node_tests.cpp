// The reference evaluator on the official ONNX backend node tests shipped by Debian's
// libonnx-testdata (/usr/share/libonnx-testdata/data/node/test_*: model.onnx and
// test_data_set_*/{input,output}_N.pb): every test whose ops the evaluator supports runs and is
// compared with the expected outputs at ONNX's tolerances (rtol 1e-3, atol 1e-7; integer outputs
// exactly). tests/sim/onnx/node_tests_expected.txt records each test's outcome (pass, fail, skip:
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

#include "tests/sim/onnx/node_suite.h"

namespace npu::test {
namespace {

using namespace node_suite;
namespace fs = std::filesystem;

// Runs every test of one suite directory against its expectation file.
void run_suite(const std::string& suite, const std::string& expected_file, int min_passed) {
    const std::string dir_path = std::string(kDataDir) + "/" + suite;
    if (!fs::exists(dir_path)) {
        GTEST_SKIP() << dir_path << " is absent (install libonnx-testdata)";
    }
    std::map<std::string, std::string> expected;
    {
        const std::string path = std::string(NPUSIM_SOURCE_DIR "/tests/sim/onnx/") + expected_file;
        std::ifstream in(path);
        // The pinned outcomes are what makes a regression fail: without them the suite proves
        // nothing, so a missing file is a failure, not an empty expectation.
        ASSERT_TRUE(in.good()) << path << " cannot be read";
        std::string name, outcome;
        while (in >> name >> outcome) {
            if (name[0] != '#') {
                expected[name] = outcome;
            } else {
                std::getline(in, name);
            }
        }
    }
    ASSERT_FALSE(expected.empty()) << expected_file << " pins no outcome";
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
    run_suite("node", "node_tests_expected.txt", 583);
}

TEST(OnnxNodeTests, PytorchConvertedSuite) {
    run_suite("pytorch-converted", "pytorch_converted_expected.txt", 69);
}

TEST(OnnxNodeTests, PytorchOperatorSuite) {
    run_suite("pytorch-operator", "pytorch_operator_expected.txt", 35);
}

}  // namespace
}  // namespace npu::test
