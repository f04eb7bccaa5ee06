// npusim aipp: one AIPP load-image job run on the Ascend platform (built-in configs/ascend.yaml,
// or --platform): the tile as .npy and PNG, a report with the simulated time, the bus traffic and
// the cost model's figures.
#include <memory>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/report_writer.h"
#include "sim/core/files.h"

namespace npu::app {

int cmd_aipp(const AippOptions& opts) {
    const std::unique_ptr<platform::Platform> p =
        load_platform(opts.platform, opts.set, "ascend.yaml");
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    platform::RunRequest req;
    req.model = opts.config;
    req.input = opts.input;
    const platform::RunReport report = p->run(req);
    return finish_run("aipp", report, out.get(), nullptr);
}

}  // namespace npu::app
