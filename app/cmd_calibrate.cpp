// npusim calibrate: a program and the per-layer times a board measured -> the platform's time
// model fitted to them (the platform face's calibrate), as a calibration YAML.
#include <memory>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/report_writer.h"
#include "sim/core/files.h"

namespace npu::app {

int cmd_calibrate(const CalibrateOptions& opts) {
    const std::unique_ptr<platform::Platform> p = load_platform(opts.platform, opts.set);
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    const platform::RunReport r = p->calibrate({opts.model, opts.measured, out != nullptr});
    return finish_run("calibrate", r, out.get(), nullptr);  // report.json, layers.csv, page
}

}  // namespace npu::app
