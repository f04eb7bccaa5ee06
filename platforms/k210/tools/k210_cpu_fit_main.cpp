// npusim-k210-cpu-fit: the CPU time model's per-op constants from the vendor runtimes' kernels
// measured on the hart (platforms/k210/data/k210_cpu_kernels.txt, written by the firmware
// firmware/k210-cpu-kernels), printed as the tables of docs/k210_platform.md "CPU kernels on the
// hart"; with --write DOC it puts them into DOC, with --check DOC it exits 1 when DOC or the
// shipped constants (PLATFORM.yaml) differ from the fit. scripts/k210-cpu-fit.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <systemc>

#include "platforms/k210/kmodel/cpu_fit.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace {

constexpr const char* kBegin = "<!-- cpu-fit:begin -->";
constexpr const char* kEnd = "<!-- cpu-fit:end -->";

std::string text_of(const std::string& path) {
    const std::vector<uint8_t> bytes = npu::sim::read_file(path);
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace

int sc_main(int argc, char** argv) {  // no simulation: SystemC's library comes with the config
    using namespace npu;
    if (argc != 3 && argc != 5) {
        std::fprintf(stderr,
                     "usage: npusim-k210-cpu-fit KERNELS.txt PLATFORM.yaml "
                     "[--write|--check DOC.md]\n");
        return 2;
    }
    try {
        const auto measures = k210::parse_kernel_lines(text_of(argv[1]), argv[1]);
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(argv[2]);
        const k210::K210Config cfg = k210::read_k210_config(doc.root().child("platform"));
        doc.finish();
        const k210::CpuFitReport rep = k210::cpu_fit_report(measures, cfg.cpu);
        if (argc == 3) {
            std::fputs(rep.markdown.c_str(), stdout);
            return rep.shipped_match ? 0 : 1;
        }
        const std::string mode = argv[3], doc_path = argv[4];
        const std::string text = text_of(doc_path);
        const std::string want = sim::replace_between(text, kBegin, kEnd, rep.markdown);
        if (mode == "--write") {
            sim::write_file_atomic(doc_path, want.data(), want.size());
        } else if (mode != "--check") {
            std::fprintf(stderr, "npusim-k210-cpu-fit: %s is neither --write nor --check\n",
                         mode.c_str());
            return 2;
        } else if (want != text) {
            std::fprintf(stderr,
                         "%s: its CPU kernel tables differ from the fit; run scripts/k210-cpu-fit "
                         "--write\n%s",
                         doc_path.c_str(), rep.markdown.c_str());
            return 1;
        }
        if (!rep.shipped_match) {
            std::fprintf(stderr,
                         "a shipped CPU constant (%s cpu.cycles_per_mac, op_cycles_per_element or "
                         "op_cycles_per_mac) is not the fit's:\n%s",
                         argv[2], rep.markdown.c_str());
            return 1;
        }
        return 0;
    } catch (const sim::Error& e) {
        std::fprintf(stderr, "npusim-k210-cpu-fit: %s\n", e.what());
        return 2;
    }
}

int main(int argc, char** argv) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
