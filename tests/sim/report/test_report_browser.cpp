// The default job's report.html in a real browser (Debian's chromium, headless): the page loads
// without console errors, its DOM has the per-layer bars (5 layers x 8 series), the timeline's
// spans and a roofline point per KPU layer, and its screenshot is not blank. `npusim report DIR`
// draws the same page again. Skipped, saying why, when chromium is not installed
// (scripts/install-deps installs it).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/core/image.h"

namespace npu::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

int sh(const std::string& cmd) {
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string find_chromium() {
    for (const char* name : {"chromium", "chromium-browser"}) {
        if (sh(std::string("command -v ") + name + " >/dev/null 2>&1") == 0) {
            return name;
        }
    }
    return "";
}

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) {
        ++n;
    }
    return n;
}

struct Rendered {
    std::string dom, log;
    int rc = -1;
};

// The page's DOM after loading it in headless chromium, and the browser's log.
Rendered render(const std::string& chromium, const fs::path& page, const fs::path& work) {
    const std::string cmd =
        chromium +
        " --headless --no-sandbox --disable-gpu --user-data-dir=" + (work / "profile").string() +
        " --enable-logging=stderr --v=0 --dump-dom file://" + page.string() + " >" +
        (work / "dom.html").string() + " 2>" + (work / "log.txt").string();
    Rendered r;
    r.rc = sh(cmd);
    r.dom = slurp(work / "dom.html"), r.log = slurp(work / "log.txt");
    return r;
}

// An empty folder of the test's own under the temporary directory.
fs::path fresh_dir(const std::string& tag) {
    const fs::path dir =
        fs::temp_directory_path() / ("npusim-browser-" + tag + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// The digits CNN compiled for the K210 into dir/digits.kmodel; false when npusim failed.
bool compile_digits(const fs::path& dir, std::string& km) {
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    km = (dir / "digits.kmodel").string();
    return sh(std::string(NPUSIM_BIN) + " compile --target k210 " + d + "digits_cnn.onnx " +
              "--calibrate " + d + "calib_images.npy -o " + km + " >/dev/null") == 0;
}

TEST(ReportBrowser, TheDefaultJobsPageRendersWithItsPlots) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) {
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it)";
    }
    const fs::path dir = fresh_dir("");
    ASSERT_EQ(
        sh(std::string(NPUSIM_BIN) + " run --trace --out " + (dir / "d").string() + " >/dev/null"),
        0);
    const fs::path page = dir / "d" / "report.html";
    const std::string first = slurp(page);
    EXPECT_LT(first.size(), 2u << 20);
    const std::string browser = chromium +
                                " --headless --no-sandbox --disable-gpu --hide-scrollbars "
                                "--user-data-dir=" +
                                (dir / "profile").string() + " --window-size=1100,1400 ";
    const Rendered r = render(chromium, page, dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    const std::string &dom = r.dom, &log = r.log;
    EXPECT_EQ(count(log, "Uncaught"), 0u) << log;
    EXPECT_EQ(count(log, ":CONSOLE("), 0u) << log;
    EXPECT_EQ(count(dom, "class=\"bar\""), 5u * 8);  // the digits CNN's 5 layers, 8 series
    EXPECT_GE(count(dom, "class=\"span\""), 5u);     // KPU layers, DMA, CPU layers
    // The interrupts the driver took: the KPU's after layers 0 and 1, the DMA's after layer 2.
    EXPECT_EQ(count(dom, "data-series=\"irq\""), 3u);
    EXPECT_EQ(count(dom, "class=\"point\""), 3u);  // the roofline: the 3 KPU layers
    EXPECT_GE(count(dom, "<svg"), 3u);
    EXPECT_EQ(count(dom, "class=\"picture\""), 1u);  // the timed digit (input.npy, 16 x 16)
    ASSERT_EQ(sh(browser + "--screenshot=" + (dir / "shot.png").string() + " file://" +
                 page.string() + " >/dev/null 2>&1"),
              0);
    const sim::Tensor png = sim::read_image((dir / "shot.png").string());
    const size_t plane = static_cast<size_t>(png.dim(2) * png.dim(3));
    size_t ink = 0;
    std::set<uint32_t> colours;
    for (size_t i = 0; i < plane; ++i) {
        const uint8_t* p = png.data<uint8_t>();
        const uint32_t rgb =
            (uint32_t{p[i]} << 16) | (uint32_t{p[plane + i]} << 8) | p[2 * plane + i];
        ink += rgb != 0xffffff ? 1 : 0;
        colours.insert(rgb);
    }
    EXPECT_GT(ink, plane / 50) << "the screenshot is (almost) blank";
    EXPECT_GE(colours.size(), 8u);  // the palette's series colours, text, grid
    // npusim report draws the same page from the directory's JSON.
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " report " + (dir / "d").string() + " >/dev/null"), 0);
    EXPECT_EQ(slurp(page), first);
    fs::remove_all(dir);
}

// A regress page (the digits CNN against its ONNX model with a 0.9 LSB tolerance, which every
// layer exceeds, and the digits' labels), drawn from its verdict record: both checked measures
// (max error in LSB, cosine distance) have their 5 layers' bars in two series, the tolerance
// lines and the first diverging layer marked, the two confusion matrices their 10 x 10 cells,
// and nothing logs an error.
TEST(ReportBrowser, ARegressPageMarksItsFirstDivergingLayer) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) {
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it)";
    }
    const fs::path dir = fresh_dir("r");
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    std::string km;
    ASSERT_TRUE(compile_digits(dir, km));
    // Exit 1: the tolerance is exceeded; the report is written all the same.
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " regress --onnx " + d + "digits_cnn.onnx --model " +
                 km + " --inputs " + d + "test_images.npy --labels " + d +
                 "test_labels.npy --max-lsb 0.9 --out " + (dir / "r").string() + " >/dev/null"),
              1);
    const Rendered r = render(chromium, dir / "r" / "report.html", dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    EXPECT_EQ(count(r.log, ":CONSOLE("), 0u) << r.log;
    EXPECT_EQ(count(r.dom, "class=\"bar\""), 2u * 5 * 2);
    EXPECT_EQ(count(r.dom, "class=\"tolerance\""), 2u);
    EXPECT_EQ(count(r.dom, "class=\"marked\" data-item=\"0\""), 2u);  // layer 0 diverges first
    // Confusion matrices (simulated, float) of the 10 digit classes; the 27 zeros all read as 0.
    EXPECT_EQ(count(r.dom, "class=\"confusion-cell\""), 2u * 10 * 10);
    EXPECT_EQ(count(r.dom,
                    "data-label=\"0\" data-predicted=\"0\" "
                    "style=\"background:rgba(30,110,180,1.000)\">27<"),
              2u);
    fs::remove_all(dir);
}

// The page of a 99-layer model (ulffd_landmark v4 from ../shared, traced) stays small and quick:
// under 2 MB, and headless chromium lays it out (every layer's 7 bars, a span per layer and
// engine) within the test's time. Skipped, saying why, without ../shared or chromium.
TEST(ReportBrowser, A99LayerModelsPageStaysSmall) {
    const std::string chromium = find_chromium();
    const std::string model = NPUSIM_SHARED_DIR "/k210/ulffd_landmark_v4.kmodel";
    if (chromium.empty() || !fs::exists(model)) {
        GTEST_SKIP() << (chromium.empty() ? "chromium is not installed"
                                          : model + " is not here (../shared is optional)");
    }
    const fs::path dir = fresh_dir("99");
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " run --model " + model + " --input " +
                 NPUSIM_SHARED_DIR "/k210/coco_436551.jpg --trace --out " + (dir / "u").string() +
                 " >/dev/null 2>&1"),
              0);
    const fs::path page = dir / "u" / "report.html";
    EXPECT_LT(fs::file_size(page), 2u << 20);
    const Rendered r = render(chromium, page, dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    EXPECT_EQ(count(r.log, ":CONSOLE("), 0u) << r.log;
    EXPECT_EQ(count(r.dom, "class=\"bar\""), 99u * 8);
    EXPECT_GE(count(r.dom, "class=\"span\""), 99u);
    fs::remove_all(dir);
}

// A campaign's page: the digits regress at two tolerances x functional/timed: one row per job,
// each linking to the job's own page, the 1 LSB rows failed, the status bars.
TEST(ReportBrowser, ACampaignPageListsItsJobs) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) {
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it)";
    }
    const fs::path dir = fresh_dir("c");
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    std::string km;
    ASSERT_TRUE(compile_digits(dir, km));
    std::ofstream(dir / "c.yaml") << "campaign:\n  name: digits\n  command: regress\n"
                                     "  options: {onnx: " +
                                         d + "digits_cnn.onnx, model: " + km + ", inputs: " + d +
                                         "test_images.npy}\n  axes:\n"
                                         "    - name: tol\n      values: [{name: '8', options: "
                                         "{max-lsb: 8}}, {name: '1', options: {max-lsb: 1}}]\n"
                                         "    - name: timing\n      values: [{name: f}, {name: "
                                         "t, options: {timed: true}}]\n";
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " campaign run " + (dir / "c.yaml").string() +
                 " --out " + (dir / "camp").string() + " >/dev/null"),
              1);  // the 1 LSB jobs fail
    const Rendered r = render(chromium, dir / "camp" / "report.html", dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    EXPECT_EQ(count(r.log, ":CONSOLE("), 0u) << r.log;
    EXPECT_EQ(count(r.dom, "class=\"job\""), 4u);
    EXPECT_EQ(count(r.dom, "class=\"job-page\""), 4u);
    EXPECT_EQ(count(r.dom, "data-status=\"failed\""), 2u);
    EXPECT_EQ(count(r.dom, "class=\"bar\""), 4u);  // passed, failed, error, timeout
    EXPECT_TRUE(fs::exists(dir / "camp" / "jobs" / "00000_tol-8-timing-f" / "report.html"));
    // npusim report draws the same page from the folder's campaign.json.
    const std::string first = slurp(dir / "camp" / "report.html");
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " report " + (dir / "camp").string() + " >/dev/null"),
              0);
    EXPECT_EQ(slurp(dir / "camp" / "report.html"), first);
    fs::remove_all(dir);
}

// An estimate page of the K210 sweep in configs/k210_layers.yaml: one whisker and one median dot
// per value of every swept parameter, per measure (cycles, utilization). sipeed_3x3 sweeps width
// (5 values), height (3) and weight_bits (2); mobilenet_block in_channels (16), out_channels (16),
// width (4), height (4), kernel, depthwise and pool (2 each): 56 values x 2 measures = 112.
TEST(ReportBrowser, AnEstimatePagePlotsTheSweep) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) {
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it)";
    }
    const fs::path dir = fresh_dir("e");
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) +
                 " estimate --layers " NPUSIM_SOURCE_DIR "/configs/k210_layers.yaml --out " +
                 (dir / "e").string() + " >/dev/null 2>&1"),
              0);
    const fs::path page = dir / "e" / "report.html";
    const std::string first = slurp(page);
    EXPECT_LT(first.size(), 2u << 20);
    const Rendered r = render(chromium, page, dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    EXPECT_EQ(count(r.log, ":CONSOLE("), 0u) << r.log;
    EXPECT_EQ(count(r.dom, "class=\"range\""), 112u);
    EXPECT_EQ(count(r.dom, "class=\"median\""), 112u);
    EXPECT_EQ(count(r.dom, "data-parameter=\"width\""), 4u);  // 2 groups x 2 measures
    // npusim report draws the same page from estimate.json and the plot in report.json.
    ASSERT_EQ(sh(std::string(NPUSIM_BIN) + " report " + (dir / "e").string() + " >/dev/null"), 0);
    EXPECT_EQ(slurp(page), first);
    fs::remove_all(dir);
}

// A FINN dataflow page (our TFC-like MLP on 297 digits, FIFOs sized, traced), drawn from its run
// record like any other: per layer its time split three ways (busy, waiting, held), a span per
// layer and frame on the timeline, the FIFO and sizing tables, and nothing logs an error.
TEST(ReportBrowser, AFinnDesignsPageShowsWhereTheCyclesGo) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) {
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it)";
    }
    const fs::path dir = fresh_dir("f");
    const std::string n = NPUSIM_SOURCE_DIR "/configs/networks/finn/";
    ASSERT_EQ(
        sh(std::string(NPUSIM_BIN) +
           " run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " + n +
           "tfc_digits.onnx --folding " + n + "folding.json --input " + n +
           "test_inputs.npy --size-fifos --trace --out " + (dir / "f").string() + " >/dev/null"),
        0);
    const Rendered r = render(chromium, dir / "f" / "report.html", dir);
    ASSERT_EQ(r.rc, 0) << r.log;
    EXPECT_EQ(count(r.log, ":CONSOLE("), 0u) << r.log;
    // 6 layers (4 of the graph, 2 converters): 3 series each.
    EXPECT_EQ(count(r.dom, "class=\"bar\""), 6u * 3);
    EXPECT_EQ(count(r.dom, "class=\"span\""), 6u * 297);
    EXPECT_NE(r.dom.find("<h2>FIFO sizing</h2>"), std::string::npos);
    EXPECT_NE(r.dom.find("<h2>FINN's estimate</h2>"), std::string::npos);
    EXPECT_NE(r.dom.find("a lower bound"), std::string::npos);  // the record's note
    EXPECT_NE(r.dom.find("MVAU_hls_0 -&gt; MVAU_hls_1"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::test
