// The fixture of the npusim program's tests: a fresh folder per test, npusim run as a user runs
// it (exit code, stdout, stderr), and the digits model compiled and put in a campaign.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npu::test {

namespace fs = std::filesystem;

struct Result {
    int rc;
    std::string out;
    std::string err;
};

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("npusim-cli-" + std::to_string(::getpid()) + "-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    Result run(const std::string& args) { return shell(std::string(NPUSIM_BIN) + " " + args); }
    // A shell command, its stdout and stderr captured.
    Result shell(const std::string& cmd) {
        const fs::path out = dir / "stdout", err = dir / "stderr";
        const int status =
            std::system((cmd + " >" + out.string() + " 2>" + err.string() + " </dev/null").c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
    }
    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return dir / name;
    }
    // The digits CNN compiled for the K210 into dir/digits.kmodel, whose path it sets.
    void compile_digits(std::string& km) {
        km = (dir / "digits.kmodel").string();
        ASSERT_EQ(run("compile --target k210 " + kDigits + "digits_cnn.onnx --calibrate " +
                      kDigits + "calib_images.npy -o " + km)
                      .rc,
                  0);
    }
    // dir/c.yaml: a regress campaign of the digits CNN at the given LSB tolerances (axis "tol",
    // values named by the number) x functional/timed (axis "timing": f, t).
    fs::path digits_campaign(const std::string& km, const std::vector<std::string>& lsbs,
                             const std::string& name = "digits") {
        std::string values;
        for (const std::string& l : lsbs) {
            values += (values.empty() ? "" : ", ") + std::string("{name: '") + l +
                      "', options: {max-lsb: " + l + "}}";
        }
        return write("c.yaml",
                     "campaign:\n  name: " + name + "\n  command: regress\n  options: {onnx: " +
                         kDigits + "digits_cnn.onnx, model: " + km + ", inputs: " + kDigits +
                         "test_images.npy}\n  axes:\n    - name: tol\n"
                         "      values: [" +
                         values +
                         "]\n    - name: timing\n"
                         "      values: [{name: f}, {name: t, options: {timed: true}}]\n");
    }
    const std::string kDigits = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    fs::path dir;
};

}  // namespace npu::test
