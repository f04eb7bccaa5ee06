// The platform seam: a platform kind registered from this test folder, never named in app,
// runs through `npusim run`, `npusim info` and `npusim estimate` (the program's own main, in
// process), and the registry's errors name every kind. platforms/common/platform_face.h.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/app.h"
#include "platforms/common/platform_face.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

namespace fs = std::filesystem;

// A toy accelerator: `lanes` MACs per cycle. run() "executes" a layer list of MAC counts given as
// --model (one number per line) and reports cycles = ceil(macs / lanes) per layer.
class ToyFace final : public platform::Platform {
public:
    ToyFace(uint32_t lanes, std::string source)
        : Platform("toy", std::move(source))
        , m_lanes(lanes) {}
    std::string describe() const override { return fmt::format("toy with {} lanes\n", m_lanes); }
    platform::RunReport run(const platform::RunRequest& r) override {
        if (r.model.empty()) {
            throw sim::Error("toy: --model LAYERS.txt needed");
        }
        std::ifstream in(r.model);
        platform::RunReport rep;
        sim::RunRecord rec;
        rec.platform = {"toy", "toy", source(), {}};
        uint64_t macs = 0, total = 0;
        while (in >> macs) {
            const uint64_t cycles = (macs + m_lanes - 1) / m_lanes;
            sim::LayerRecord l;
            l.index = rec.layers.size(), l.op = "mac", l.macs = macs;
            l.engines.push_back({"toy", cycles * 1000, "toy", 1e9, {{"compute", cycles}}});
            rec.layers.push_back(l);
            total += cycles;
        }
        rep.text = fmt::format("toy: {} layers, {} cycles\n", rec.layers.size(), total);
        rec.totals = {{"total_cycles", static_cast<double>(total), "cycles"}};
        rep.record = std::move(rec);
        rep.files.push_back({"note.txt", {'o', 'k', '\n'}});
        return rep;
    }
    platform::EstimateReport estimate(const platform::EstimateRequest& r) const override {
        return {fmt::format("toy estimate of {}\n", r.layers), "", {}, std::nullopt};
    }

private:
    uint32_t m_lanes;
};

void register_toy() {
    static const bool once = [] {
        platform::register_platform({"toy", "a test accelerator",
                                     [](const sim::ConfigNode& p, const std::string& src) {
                                         return std::make_unique<ToyFace>(
                                             p.get<uint32_t>("lanes", 1, 1, 1024), src);
                                     },
                                     false});
        return true;
    }();
    (void)once;
}

class PlatformRegistry : public ::testing::Test {
protected:
    void SetUp() override {
        register_toy();
        dir = fs::temp_directory_path() /
              ("npusim-registry-" + std::to_string(::getpid()) + "-" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    }
    // npusim's main in this process; stdout and stderr captured.
    int npusim(std::vector<std::string> args, std::string& out, std::string& err) {
        args.insert(args.begin(), "npusim");
        std::vector<char*> argv;
        for (std::string& a : args) {
            argv.push_back(a.data());
        }
        ::testing::internal::CaptureStdout();
        ::testing::internal::CaptureStderr();
        const int rc = app::main(static_cast<int>(argv.size()), argv.data());
        out = ::testing::internal::GetCapturedStdout();
        err = ::testing::internal::GetCapturedStderr();
        return rc;
    }
    fs::path dir;
};

TEST_F(PlatformRegistry, ATestPlatformRunsThroughTheProgram) {
    const std::string cfg = write("toy.yaml", "platform:\n  kind: toy\n  lanes: 64\n");
    const std::string layers = write("layers.txt", "100\n64\n1\n");
    std::string out, err;
    // 100 MACs on 64 lanes: ceil(100/64) = 2 cycles; 64 -> 1; 1 -> 1: 4 cycles.
    ASSERT_EQ(npusim({"run", "--platform", cfg, "--model", layers, "--out", (dir / "o").string()},
                     out, err),
              0)
        << err;
    EXPECT_EQ(out.substr(0, out.find('\n') + 1), "toy: 3 layers, 4 cycles\n");
    std::ifstream rj(dir / "o" / "report.json");
    const auto j = nlohmann::json::parse(rj);
    EXPECT_EQ(j["command"], "run");
    EXPECT_EQ(j["totals"]["total_cycles"]["value"], 4);
    EXPECT_EQ(j["layers"][0]["engines"][0]["parts"]["compute"], 2);
    EXPECT_TRUE(fs::exists(dir / "o" / "report.html"));  // a new platform's page for free
    EXPECT_TRUE(fs::exists(dir / "o" / "note.txt"));

    ASSERT_EQ(npusim({"info", "--platform", cfg}, out, err), 0) << err;
    EXPECT_EQ(out, "toy with 64 lanes\n");
    ASSERT_EQ(npusim({"estimate", "--platform", cfg, "--layers", layers}, out, err), 0) << err;
    EXPECT_EQ(out, "toy estimate of " + layers + "\n");
    // What the toy does not implement is one clear error naming it.
    EXPECT_EQ(npusim({"info", "--platform", cfg, "--model", layers}, out, err), 2);
    EXPECT_EQ(err, "npusim: error: " + cfg + ": platform kind toy reads no program files (" +
                       layers + ")\n");
}

TEST_F(PlatformRegistry, UnknownKindNamesEveryRegisteredKind) {
    const std::string cfg = write("bad.yaml", "platform:\n  kind: toyy\n");
    std::string out, err;
    EXPECT_EQ(npusim({"info", "--platform", cfg}, out, err), 2);
    EXPECT_NE(
        err.find(cfg + ":2:9: platform.kind: expected one of k210, dlp, ascend, finn, selfcheck, "
                       "toy, got 'toyy'"),
        std::string::npos)
        << err;
    const std::string none = write("none.yaml", "platform:\n  name: x\n");
    EXPECT_EQ(npusim({"info", "--platform", none}, out, err), 2);
    EXPECT_NE(err.find("platform: missing required key 'kind' (one of: k210, dlp, ascend, finn, "
                       "selfcheck, toy)"),
              std::string::npos)
        << err;
    // The toy's own keys are checked like every config's: a misspelt one is an error.
    const std::string typo = write("typo.yaml", "platform:\n  kind: toy\n  lanez: 4\n");
    EXPECT_EQ(npusim({"info", "--platform", typo}, out, err), 2);
    EXPECT_NE(err.find("platform.lanez: unknown key (did you mean 'lanes'?)"), std::string::npos)
        << err;
}

TEST_F(PlatformRegistry, EveryBuiltInKindHasASummaryAndAReader) {
    register_toy();
    std::vector<std::string> kinds;
    for (const platform::PlatformKind& k : platform::platform_kinds()) {
        EXPECT_FALSE(k.summary.empty()) << k.kind;
        EXPECT_TRUE(static_cast<bool>(k.read)) << k.kind;
        kinds.push_back(k.kind);
    }
    EXPECT_EQ(kinds,
              (std::vector<std::string>{"k210", "dlp", "ascend", "finn", "selfcheck", "toy"}));
}

}  // namespace
}  // namespace npu::test
