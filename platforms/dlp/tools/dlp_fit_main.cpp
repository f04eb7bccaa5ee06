// npusim-dlp-fit: fits the DL processor's time constants to dlhdl's estimator table
// (platforms/dlp/data) and prints the tables of docs/dlp.md "Timing"; with --write DOC it puts them
// into DOC, with --check DOC it exits 1 when DOC or the shipped constants differ from the fit.
// scripts/dlp-fit.
#include <cstdio>
#include <string>

#include "platforms/dlp/dlp_fit.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace {

constexpr const char* kBegin = "<!-- dlp-fit:begin -->";
constexpr const char* kEnd = "<!-- dlp-fit:end -->";

int check_or_write(const std::string& mode, const std::string& doc_path,
                   const npu::dlp::DlpFitReport& rep) {
    const std::string text = npu::sim::read_text_file(doc_path);
    const std::string want = npu::sim::replace_between(text, kBegin, kEnd, rep.markdown);
    if (mode == "--write") {
        npu::sim::write_text_atomic(doc_path, want);
    } else if (want != text) {
        std::fprintf(stderr,
                     "%s: its DL processor fit tables differ from the fit; run "
                     "scripts/dlp-fit --write\n%s",
                     doc_path.c_str(), rep.markdown.c_str());
        return 1;
    }
    if (!rep.shipped_match) {
        std::fprintf(stderr,
                     "a shipped DL processor constant (models/dlp/dlp_cost.h, dlp_config.h, "
                     "configs/dlp_*.yaml) differs from the fit:\n%s",
                     rep.mismatch.c_str());
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace npu;
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr,
                     "usage: npusim-dlp-fit NETWORK.yaml MEASURED.csv PLATFORM.yaml "
                     "[--write|--check DOC.md]\n");
        return 2;
    }
    try {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(argv[3]);
        const dlp::DlpPlatformConfig cfg = dlp::read_dlp_platform(doc.root().child("platform"));
        doc.finish();
        const dlp::NetworkFile f = dlp::load_network(argv[1], cfg);
        const auto rows = dlp::read_measured_layers(sim::read_text_file(argv[2]), argv[2]);
        dlp::DlpFitReport rep = dlp::dlp_fit_report(f.network, cfg.dlp, cfg.timing, rows);
        // The built-in defaults (a platform file without timing keys) are the shipped ones too.
        const dlp::DlpTiming t;
        const dlp::DlpConfig d;
        if (t.conv_setup_cycles != cfg.timing.conv_setup_cycles ||
            t.adder_setup_cycles != cfg.timing.adder_setup_cycles ||
            t.fc_setup_cycles != cfg.timing.fc_setup_cycles ||
            t.start_cycles != cfg.timing.start_cycles ||
            d.ddr_burst_latency_cycles != cfg.dlp.ddr_burst_latency_cycles ||
            d.axi_bits() != cfg.dlp.axi_bits()) {
            rep.shipped_match = false;
            rep.mismatch += "the defaults of DlpTiming and DlpConfig differ from the platform's\n";
        }
        if (argc == 4) {
            std::fputs(rep.markdown.c_str(), stdout);
            if (!rep.shipped_match) {
                std::fputs(rep.mismatch.c_str(), stderr);
            }
            return rep.shipped_match ? 0 : 1;
        }
        return check_or_write(argv[4], argv[5], rep);
    } catch (const sim::Error& e) {
        std::fprintf(stderr, "npusim-dlp-fit: %s\n", e.what());
        return 2;
    }
}
