// npusim-dlp-fit: fits the DL processor's time constants to dlhdl's estimator table
// (platforms/dlp/data) and prints the tables of docs/dlp.md "Timing"; with --resources FIGURES.yaml
// also its resource constants to dlhdl's resource figures ("Resources"). With --write DOC it puts
// the tables into DOC, with --check DOC it exits 1 when DOC or the shipped constants differ from
// the fit. scripts/dlp-fit.
#include <cstdio>
#include <string>
#include <vector>

#include "platforms/dlp/dlp_fit.h"
#include "platforms/dlp/dlp_job.h"
#include "platforms/dlp/dlp_resource_fit.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace {

constexpr const char* kBegin = "<!-- dlp-fit:begin -->";
constexpr const char* kEnd = "<!-- dlp-fit:end -->";
constexpr const char* kResourcesBegin = "<!-- dlp-resources:begin -->";
constexpr const char* kResourcesEnd = "<!-- dlp-resources:end -->";

int check_or_write(const std::string& mode, const std::string& doc_path,
                   const npu::dlp::DlpFitReport& rep, const std::string& resources) {
    const std::string text = npu::sim::read_text_file(doc_path);
    std::string want = npu::sim::replace_between(text, kBegin, kEnd, rep.markdown);
    if (!resources.empty()) {
        want = npu::sim::replace_between(want, kResourcesBegin, kResourcesEnd, resources);
    }
    if (mode == "--write") {
        npu::sim::write_text_atomic(doc_path, want);
    } else if (want != text) {
        std::fprintf(stderr,
                     "%s: its DL processor fit tables differ from the fit; run "
                     "scripts/dlp-fit --write\n%s%s",
                     doc_path.c_str(), rep.markdown.c_str(), resources.c_str());
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

// The resource fit's tables ("" without --resources), its mismatches added to `rep`.
std::string resource_tables(const std::string& figures, uint64_t taps,
                            npu::dlp::DlpFitReport& rep) {
    if (figures.empty()) {
        return "";
    }
    const npu::dlp::ResourceFitReport r =
        npu::dlp::resource_fit_report(npu::dlp::read_resource_figures(figures), taps);
    if (!r.shipped_match) {
        rep.shipped_match = false;
        rep.mismatch += "models/dlp/dlp_resources.h ResourceModel:\n" + r.mismatch;
    }
    return r.markdown;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace npu;
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string figures;
    if (args.size() >= 2 && args[args.size() - 2] == "--resources") {
        figures = args.back();
        args.resize(args.size() - 2);
    } else if (args.size() >= 4 && args[3] == "--resources") {
        figures = args[4];
        args.erase(args.begin() + 3, args.begin() + 5);
    }
    if (args.size() != 3 && args.size() != 5) {
        std::fprintf(stderr,
                     "usage: npusim-dlp-fit NETWORK.yaml MEASURED.csv PLATFORM.yaml "
                     "[--resources FIGURES.yaml] [--write|--check DOC.md]\n");
        return 2;
    }
    try {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(args[2]);
        const dlp::DlpPlatformConfig cfg = dlp::read_dlp_platform(doc.root().child("platform"));
        doc.finish();
        const dlp::NetworkFile f = dlp::load_network(args[0], cfg);
        const auto rows = dlp::read_measured_layers(sim::read_text_file(args[1]), args[1]);
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
        const std::string resources = resource_tables(figures, cfg.timing.taps_per_pass, rep);
        if (args.size() == 3) {
            std::fputs((rep.markdown + resources).c_str(), stdout);
            if (!rep.shipped_match) {
                std::fputs(rep.mismatch.c_str(), stderr);
            }
            return rep.shipped_match ? 0 : 1;
        }
        return check_or_write(args[3], args[4], rep, resources);
    } catch (const sim::Error& e) {
        std::fprintf(stderr, "npusim-dlp-fit: %s\n", e.what());
        return 2;
    }
}
