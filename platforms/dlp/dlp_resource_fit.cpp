#include "platforms/dlp/dlp_resource_fit.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::dlp {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kProcessor = "DL_Processor";

// The fitted constants of ResourceModel, each with its name as the doc prints it.
struct Constant {
    const char* name;
    double ResourceModel::*field;
};
constexpr Constant kConstants[] = {
    {"conv_dsp_per_lane", &ResourceModel::conv_dsp_per_lane},
    {"fc_dsp_per_lane", &ResourceModel::fc_dsp_per_lane},
    {"adder_dsp", &ResourceModel::adder_dsp},
    {"conv_bram", &ResourceModel::conv_bram},
    {"fc_bram", &ResourceModel::fc_bram},
    {"adder_bram", &ResourceModel::adder_bram},
    {"debug_bram", &ResourceModel::debug_bram},
    {"sched_bram", &ResourceModel::sched_bram},
    {"lut_per_dsp", &ResourceModel::lut_per_dsp},
    {"intel_dsp_factor", &ResourceModel::intel_dsp_factor},
    {"intel_bram_factor", &ResourceModel::intel_bram_factor},
};

// Per module: the constant its DSPs scale (with the scale at a configuration) and its block RAM
// constant (with its memories' tiles).
struct ModuleTerms {
    double ResourceModel::*dsp;  // nullptr: no DSPs
    double ResourceModel::*bram;
};
constexpr ModuleTerms kTerms[] = {
    {&ResourceModel::conv_dsp_per_lane, &ResourceModel::conv_bram},
    {&ResourceModel::fc_dsp_per_lane, &ResourceModel::fc_bram},
    {&ResourceModel::adder_dsp, &ResourceModel::adder_bram},
    {nullptr, &ResourceModel::debug_bram},
    {nullptr, &ResourceModel::sched_bram},
};

double dsp_scale(size_t module, const DlpConfig& cfg, uint64_t taps) {
    return module == 0   ? static_cast<double>(conv_lanes(cfg, taps))
           : module == 1 ? static_cast<double>(cfg.fc_thread_number)
                         : 1.0;
}

double memory_tiles(size_t module, const DlpConfig& cfg) {
    const uint64_t words = module == 0   ? conv_memory_words(cfg)
                           : module == 1 ? fc_memory_words(cfg)
                                         : 0;
    return static_cast<double>(memory_bram(words, cfg.data_type, FpgaFamily::xilinx));
}

size_t module_index(const std::string& name) {
    for (size_t i = 0; i < kResourceModules.size(); ++i) {
        if (name == kResourceModules[i]) {
            return i;
        }
    }
    return kResourceModules.size();
}

struct Mean {
    double sum = 0;
    int n = 0;
    double value() const { return n == 0 ? kUnknown : sum / n; }
};

// Xilinx single-precision module rows: each identifies its module's constants.
void fit_modules(const std::vector<ResourceFigure>& figs, uint64_t taps, ResourceModel& m) {
    std::vector<Mean> dsp(kResourceModules.size()), bram(kResourceModules.size());
    for (const ResourceFigure& f : figs) {
        const size_t k = module_index(f.module);
        if (f.family != FpgaFamily::xilinx || f.dlp.data_type != DataType::single ||
            k == kResourceModules.size()) {
            continue;
        }
        if (f.dsp && kTerms[k].dsp != nullptr) {
            dsp[k].sum += *f.dsp / dsp_scale(k, f.dlp, taps), ++dsp[k].n;
        }
        if (f.bram) {
            bram[k].sum += *f.bram - memory_tiles(k, f.dlp), ++bram[k].n;
        }
    }
    for (size_t k = 0; k < kResourceModules.size(); ++k) {
        if (kTerms[k].dsp != nullptr) {
            m.*kTerms[k].dsp = dsp[k].value();
        }
        m.*kTerms[k].bram = bram[k].value();
    }
}

// One unknown module constant of a resource from a Xilinx DL_Processor row: the row less the
// other modules.
void fill_from_processor(const ResourceFigure& f, uint64_t taps, bool is_dsp, ResourceModel& m) {
    const std::optional<double>& total = is_dsp ? f.dsp : f.bram;
    size_t unknown = kResourceModules.size(), count = 0;
    for (size_t k = 0; k < kResourceModules.size(); ++k) {
        double ResourceModel::*c = is_dsp ? kTerms[k].dsp : kTerms[k].bram;
        if (c != nullptr && std::isnan(m.*c)) {
            unknown = k, ++count;
        }
    }
    if (!total || count != 1) {
        return;
    }
    double ResourceModel::*c = is_dsp ? kTerms[unknown].dsp : kTerms[unknown].bram;
    m.*c = 0;
    const auto v = resource_values(f.dlp, FpgaFamily::xilinx, m, taps);
    double rest = 0;
    for (const ResourceValues& x : v) {
        rest += is_dsp ? x.dsp : x.bram;
    }
    const double left = std::max(0.0, *total - rest);  // a count is never negative
    m.*c = is_dsp ? left / dsp_scale(unknown, f.dlp, taps) : left;
}

// LUTs per DSP from the DL_Processor rows of one family.
double lut_ratio(const std::vector<ResourceFigure>& figs, FpgaFamily family) {
    double lut = 0, dsp = 0;
    for (const ResourceFigure& f : figs) {
        if (f.family == family && f.module == kProcessor && f.lut && f.dsp) {
            lut += *f.lut, dsp += *f.dsp;
        }
    }
    return dsp > 0 ? lut / dsp : kUnknown;
}

void fit_intel(const std::vector<ResourceFigure>& figs, uint64_t taps, ResourceModel& m) {
    Mean dsp, bram;
    for (const ResourceFigure& f : figs) {
        if (f.family != FpgaFamily::intel || f.module != kProcessor) {
            continue;
        }
        ResourceModel x = m;
        x.intel_dsp_factor = 1, x.intel_bram_factor = 0;  // the memories' bits alone
        const auto memories = resource_values(f.dlp, FpgaFamily::intel, x, taps);
        x.intel_bram_factor = 1;  // Xilinx's part beside them, in bits
        const auto beside = resource_values(f.dlp, FpgaFamily::intel, x, taps);
        double model_dsp = 0, memory_bits = 0, beside_bits = 0;
        for (size_t k = 0; k < memories.size(); ++k) {
            model_dsp += memories[k].dsp, memory_bits += memories[k].bram;
            beside_bits += beside[k].bram - memories[k].bram;
        }
        if (f.dsp) {
            dsp.sum += *f.dsp / model_dsp, ++dsp.n;
        }
        if (f.bram) {
            bram.sum += (*f.bram - memory_bits) / beside_bits, ++bram.n;
        }
    }
    m.intel_dsp_factor = dsp.n == 0 ? 1.0 : dsp.value();
    m.intel_bram_factor = bram.n == 0 ? 1.0 : bram.value();
}

}  // namespace

ResourceModel fit_resources(const std::vector<ResourceFigure>& figs, uint64_t taps) {
    ResourceModel m;
    fit_modules(figs, taps, m);
    for (const ResourceFigure& f : figs) {
        if (f.family == FpgaFamily::xilinx && f.module == kProcessor &&
            f.dlp.data_type == DataType::single) {
            fill_from_processor(f, taps, true, m);
            fill_from_processor(f, taps, false, m);
        }
    }
    m.lut_per_dsp = lut_ratio(figs, FpgaFamily::xilinx);
    if (std::isnan(m.lut_per_dsp)) {
        m.lut_per_dsp = lut_ratio(figs, FpgaFamily::intel);
    }
    fit_intel(figs, taps, m);
    return m;
}

ResourceValues predict(const ResourceFigure& f, const ResourceModel& m, uint64_t taps) {
    const auto v = resource_values(f.dlp, f.family, m, taps);
    const size_t k = module_index(f.module);
    if (k < v.size()) {
        return v[k];
    }
    ResourceValues sum;
    for (const ResourceValues& x : v) {
        sum.dsp += x.dsp, sum.bram += x.bram, sum.lut += x.lut;
    }
    return sum;
}

std::vector<ResourceFigure> read_resource_figures(const std::string& path) {
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    std::vector<ResourceFigure> out;
    for (const sim::ConfigNode& c : doc.root().items("configurations")) {
        ResourceFigure base;
        base.config = c.get<std::string>("name");
        base.family =
            c.get_enum<FpgaFamily>("family", FpgaFamily::xilinx,
                                   {{"xilinx", FpgaFamily::xilinx}, {"intel", FpgaFamily::intel}});
        base.dlp = read_dlp_config(c.child("dlp"));
        auto row = [&](const sim::ConfigNode& r, const std::string& module) {
            ResourceFigure f = base;
            f.module = module;
            for (auto [key, dst] : {std::pair<const char*, std::optional<double>*>{"dsp", &f.dsp},
                                    {"bram", &f.bram},
                                    {"lut", &f.lut}}) {
                if (r.has(key)) {
                    *dst = r.get<double>(key, 0.0, 0.0, 1e12);
                }
            }
            out.push_back(f);
        };
        if (auto mods = c.optional_child("modules")) {
            for (const std::string& k : mods->keys()) {
                if (module_index(k) == kResourceModules.size()) {
                    mods->error_at(k,
                                   "expected one of conv_module, fc_module, adder_module, "
                                   "debug_module, sched_module");
                    continue;
                }
                row(mods->child(k), k);
            }
        }
        if (auto p = c.optional_child("processor")) {
            row(*p, kProcessor);
        }
    }
    doc.finish();
    if (out.empty()) {
        throw sim::Error(path + ": no figures (configurations: [...])");
    }
    return out;
}

namespace {

std::string number(double v) {
    return std::isnan(v) ? "—" : fmt::format("{:.4f}", v);
}

std::string error_cell(double predicted, double published) {
    if (std::isnan(predicted)) {
        return "— (not identified)";
    }
    if (published == 0) {
        return fmt::format("{:.0f} (published 0)", predicted);
    }
    return fmt::format("{:+.1f} %", 100.0 * (predicted - published) / published);
}

// One markdown row per published value: the fit's, the leave-one-out prediction, its error.
std::string figure_rows(const std::vector<ResourceFigure>& figs, const ResourceModel& all,
                        uint64_t taps) {
    std::string s;
    auto it = std::back_inserter(s);
    for (size_t i = 0; i < figs.size(); ++i) {
        std::vector<ResourceFigure> rest = figs;
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
        const ResourceValues fit = predict(figs[i], all, taps);
        const ResourceValues loo = predict(figs[i], fit_resources(rest, taps), taps);
        const ResourceFigure& f = figs[i];
        for (auto [name, published, a, b] :
             {std::tuple{"DSP", f.dsp, fit.dsp, loo.dsp},
              std::tuple{f.family == FpgaFamily::intel ? "BRAM bits" : "BRAM tiles", f.bram,
                         fit.bram, loo.bram},
              std::tuple{"LUT", f.lut, fit.lut, loo.lut}}) {
            if (!published) {
                continue;
            }
            fmt::format_to(it, "| {} | {} | {} | {:.0f} | {:.0f} | {} | {} |\n", f.config, f.module,
                           name, *published, a, std::isnan(b) ? "—" : fmt::format("{:.0f}", b),
                           error_cell(b, *published));
        }
    }
    return s;
}

}  // namespace

ResourceFitReport resource_fit_report(const std::vector<ResourceFigure>& figs, uint64_t taps) {
    ResourceFitReport r;
    r.fitted = fit_resources(figs, taps);
    const ResourceModel shipped;
    std::string s = "| constant | fitted | shipped |\n|---|---|---|\n";
    for (const Constant& c : kConstants) {
        const std::string fit = number(r.fitted.*c.field), ship = number(shipped.*c.field);
        s += fmt::format("| `{}` | {} | {} |\n", c.name, fit, ship);
        if (fit != ship) {
            r.shipped_match = false;
            r.mismatch += fmt::format("{}: fitted {}, shipped {}\n", c.name, fit, ship);
        }
    }
    s += "\n| configuration | row | resource | published | fit | left out | error |\n"
         "|---|---|---|---|---|---|---|\n";
    s += figure_rows(figs, r.fitted, taps);
    r.markdown = "\n" + s + "\n";
    return r;
}

}  // namespace npu::dlp
