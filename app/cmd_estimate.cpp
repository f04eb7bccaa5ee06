// npusim estimate: layer configurations -> cycles, bytes and utilization, from the same cost
// functions the timed simulation uses, without moving data (the platform face's estimate).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/report_writer.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::app {

int cmd_estimate(const EstimateOptions& opts) {
    if (opts.layers.empty() && opts.model.empty()) {
        throw sim::Error("estimate needs --layers FILE (layer configurations) or --model FILE");
    }
    const std::unique_ptr<platform::Platform> p =
        load_platform(opts.platform, opts.set, default_platform(opts.platform_options));
    check_platform_options(*p, opts.platform_options);
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    const platform::EstimateReport r =
        p->estimate({opts.layers, opts.model, out != nullptr, opts.platform_options});
    std::fwrite(r.text.data(), 1, r.text.size(), stdout);
    if (!r.note.empty()) {
        std::fprintf(stderr, "npusim: %s\n", r.note.c_str());
    }
    if (out) {
        write_estimate_report(*out, r);
    }
    return kExitOk;
}

}  // namespace npu::app
