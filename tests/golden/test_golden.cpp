// Golden runs of the npusim program: every output file, cycle count and report field of the
// bundled jobs, the shared K210 kmodels (timed and functional), the DL processor networks, the
// AIPP job, the estimates and the info pages, held byte for byte in tests/golden/<case>.txt.
// Text outputs are held whole (so a change shows as a reviewable diff), binary outputs by size and
// FNV-1a 64 hash. Goldens change only through scripts/update-goldens, and the diff is reviewed.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct Case {
    const char* name;
    const char* args;     // OUT stands for the output directory; paths relative to the source tree
    bool needs_shared;    // uses ../shared/k210
    bool out_dir = true;  // pass --out OUT (info pages print only)
};

// The jobs the platform seam refactor must keep bit-identical.
const Case kCases[] = {
    {"digits_timed", "run --trace", false},
    {"digits_functional", "run --functional", false},
    {"edges_timed", "run --demo edges", false},
    {"edges_functional", "run --demo edges --functional", false},
    {"edges_dump_all", "run --demo edges --dump-all", false},
    {"face_detect_v3_timed",
     "run --model ../shared/k210/face_detect_v3.kmodel --input "
     "../shared/k210/coco_436551.jpg",
     true},
    {"face_detect_v3_functional",
     "run --functional --model ../shared/k210/face_detect_v3.kmodel "
     "--input ../shared/k210/coco_436551.jpg",
     true},
    {"yolo20_v3_timed",
     "run --model ../shared/k210/yolo20_v3.kmodel --input ../shared/k210/coco_436551.jpg", true},
    {"yolo20_v3_functional",
     "run --functional --model ../shared/k210/yolo20_v3.kmodel --input "
     "../shared/k210/coco_436551.jpg",
     true},
    {"yolo20_v4_timed",
     "run --model ../shared/k210/yolo20_v4.kmodel --input ../shared/k210/coco_436551.jpg", true},
    {"yolo20_v4_functional",
     "run --functional --model ../shared/k210/yolo20_v4.kmodel --input "
     "../shared/k210/coco_436551.jpg",
     true},
    {"ulffd_landmark_v4_timed",
     "run --model ../shared/k210/ulffd_landmark_v4.kmodel --input ../shared/k210/coco_436551.jpg",
     true},
    {"ulffd_landmark_v4_functional",
     "run --functional --model ../shared/k210/ulffd_landmark_v4.kmodel --input "
     "../shared/k210/coco_436551.jpg",
     true},
    {"dlp_int8_run",
     "run --platform configs/dlp_zcu102_int8.yaml --network configs/networks/dlp_tiny.yaml", false},
    {"dlp_single_run",
     "run --platform configs/dlp_zcu102_single.yaml --network configs/networks/dlp_tiny.yaml",
     false},
    {"dlp_int8_estimate",
     "estimate --platform configs/dlp_zcu102_int8.yaml --layers configs/networks/dlp_tiny.yaml",
     false},
    {"k210_estimate", "estimate --layers configs/k210_layers.yaml", false},
    {"ulffd_landmark_v4_estimate", "estimate --model ../shared/k210/ulffd_landmark_v4.kmodel",
     true},
    {"aipp", "aipp", false},
    {"selfcheck_run", "run --platform configs/selfcheck.yaml --trace", false},
    {"k210_info", "info --platform configs/k210.yaml", false, false},
    {"dlp_info", "info --platform configs/dlp_zcu102_int8.yaml", false, false},
    {"selfcheck_info", "info --platform configs/selfcheck.yaml", false, false},
    {"yolo20_v4_model_info", "info --model ../shared/k210/yolo20_v4.kmodel", true, false},
};

// ctest names the case, not its bytes.
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

uint64_t fnv1a64(const std::string& bytes) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : bytes) {
        h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
    }
    return h;
}

// Text outputs up to this size are held whole; larger ones (a 10^5-row sweep) by hash.
constexpr size_t kWholeTextBytes = 256 * 1024;

bool is_text(const std::string& name) {
    for (const char* ext : {".json", ".csv", ".txt", ".xml"}) {
        const std::string e(ext);
        if (name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
            return true;
        }
    }
    return false;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
}

// What a case produced: the exit code, stdout (the output directory written as OUT) and every
// file of the output directory in name order.
std::string describe(const Case& c, const fs::path& work) {
    const fs::path out = work / "out", stdout_file = work / "stdout";
    std::string args = c.args;
    if (c.out_dir) {
        args += " --out " + out.string();
    }
    const std::string cmd =
        fmt::format("cd {} && {} {} >{} 2>{} </dev/null", NPUSIM_SOURCE_DIR, NPUSIM_BIN, args,
                    stdout_file.string(), (work / "stderr").string());
    const int status = std::system(cmd.c_str());
    std::string stdout_text = slurp(stdout_file);
    replace_all(stdout_text, out.string(), "OUT");
    std::string s = fmt::format("# npusim {}{}\n== exit {}\n== stdout\n{}", c.args,
                                c.out_dir ? " --out OUT" : "",
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1, stdout_text);
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        s += "== stderr\n" + slurp(work / "stderr");
    }
    std::vector<std::string> names;
    if (fs::is_directory(out)) {
        for (const fs::directory_entry& e : fs::directory_iterator(out)) {
            names.push_back(e.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
        const std::string bytes = slurp(out / n);
        if (is_text(n) && bytes.size() <= kWholeTextBytes) {
            s += fmt::format("== file {} ({} bytes)\n{}", n, bytes.size(), bytes);
        } else {
            s += fmt::format("== file {} ({} bytes, fnv1a64 {:016x})\n", n, bytes.size(),
                             fnv1a64(bytes));
        }
    }
    return s;
}

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& want, const std::string& got) {
    std::istringstream a(want), b(got);
    std::string la, lb;
    for (size_t line = 1;; ++line) {
        const bool ha = static_cast<bool>(std::getline(a, la)),
                   hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) {
            return "texts equal";
        }
        if (!ha || !hb || la != lb) {
            return fmt::format("line {}:\n  golden: {}\n  actual: {}", line,
                               ha ? la : "<end of file>", hb ? lb : "<end of file>");
        }
    }
}

class Golden : public ::testing::TestWithParam<Case> {};

TEST_P(Golden, OutputsEqualTheGolden) {
    const Case& c = GetParam();
    if (c.needs_shared && !fs::exists(NPUSIM_SHARED_DIR "/k210/yolo20_v4.kmodel")) {
        GTEST_SKIP() << "needs the real kmodels in " NPUSIM_SHARED_DIR "/k210 (absent)";
    }
    const fs::path work =
        fs::temp_directory_path() / fmt::format("npusim-golden-{}-{}", ::getpid(), c.name);
    fs::remove_all(work);
    fs::create_directories(work);
    const std::string got = describe(c, work);
    const fs::path golden =
        fs::path(NPUSIM_SOURCE_DIR) / "tests/golden" / (std::string(c.name) + ".txt");
    if (std::getenv("NPUSIM_UPDATE_GOLDENS") != nullptr) {
        std::ofstream(golden, std::ios::binary) << got;
        fs::remove_all(work);
        return;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " missing: run scripts/update-goldens";
    const std::string want = slurp(golden);
    if (want != got) {
        std::ofstream(work / "actual.txt", std::ios::binary) << got;
        FAIL() << c.name << " differs from its golden, first at " << first_difference(want, got)
               << "\nwhole: diff " << golden.string() << " " << (work / "actual.txt").string()
               << "\n(an intended change: scripts/update-goldens, then review the diff)";
    }
    fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Runs, Golden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
