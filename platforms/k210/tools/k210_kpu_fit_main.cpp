// npusim-k210-kpu-fit: fits the KPU time model to the board data (platforms/k210/data) and prints
// the tables of docs/k210_kpu.md "Timing"; with --write DOC it puts them into DOC, with --check
// DOC it exits 1 when DOC or the shipped constants differ from the fit. scripts/k210-kpu-fit.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <systemc>

#include "platforms/k210/k210_kpu_fit.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

int sc_main(int argc, char** argv) {
    using namespace npu;
    if (argc < 5 || (argc != 5 && argc != 7)) {
        std::fprintf(stderr,
                     "usage: npusim-k210-kpu-fit FACE.kmodel FACE.csv SIPEED.csv PLATFORM.yaml "
                     "[--write|--check DOC.md]\n");
        return 2;
    }
    try {
        const k210::KpuFitInputs in{argv[1], argv[2], argv[3]};
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(argv[4]);
        const k210::K210Config cfg = k210::read_k210_config(doc.root().child("platform"));
        doc.finish();
        const k210::KpuFitReport rep = k210::kpu_fit_report(in, cfg);
        if (!rep.error.empty()) {
            std::fprintf(stderr, "npusim-k210-kpu-fit: %s\n", rep.error.c_str());
            return 2;
        }
        if (argc == 5) {
            std::fputs(rep.markdown.c_str(), stdout);
            return rep.shipped_match ? 0 : 1;
        }
        const std::string mode = argv[5], doc_path = argv[6];
        const std::vector<uint8_t> bytes = sim::read_file(doc_path);
        const std::string text(bytes.begin(), bytes.end());
        const std::string want = k210::with_fit_tables(text, rep.markdown);
        if (mode == "--write") {
            sim::write_file_atomic(doc_path, want.data(), want.size());
        } else if (want != text) {
            std::fprintf(
                stderr,
                "%s: its KPU fit tables differ from the fit; run scripts/k210-kpu-fit --write\n%s",
                doc_path.c_str(), rep.markdown.c_str());
            return 1;
        }
        if (!rep.shipped_match) {
            std::fprintf(stderr,
                         "a shipped KPU constant (models/k210_kpu/kpu_cost.h) is outside the fit's "
                         "leave-one-out range:\n%s",
                         rep.markdown.c_str());
            return 1;
        }
        return 0;
    } catch (const sim::Error& e) {
        std::fprintf(stderr, "npusim-k210-kpu-fit: %s\n", e.what());
        return 2;
    }
}

int main(int argc, char** argv) {  // SystemC's kernel calls sc_main (timed runs inside the fit)
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
