// npusim regress: a compiled program on the simulated platform (the built-in K210 by default)
// against its float ONNX model, per mapped layer and per output, through the platform's face.
// Reports as a table, JSON and JUnit XML; exit 1 when a tolerance is exceeded.
#include <memory>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/report_writer.h"
#include "sim/core/files.h"

namespace npu::app {

int cmd_regress(const RegressOptions& opts) {
    const std::unique_ptr<platform::Platform> p =
        load_platform(opts.platform, opts.set, default_platform(opts.platform_options));
    check_platform_options(*p, opts.platform_options);
    platform::RegressRequest req;
    req.onnx = opts.onnx;
    req.model = opts.model;
    req.report = opts.report;
    req.inputs = opts.inputs;
    req.labels = opts.labels;
    req.tolerances = opts.tolerances;
    req.option = opts.platform_options;
    req.max_lsb = opts.max_lsb;
    req.min_cosine = opts.min_cosine;
    req.min_top1 = opts.min_top1;
    req.timed = opts.timed;
    req.preprocess = opts.preprocess;
    const auto give = [&](bool given, const char* field) {
        if (given) {
            req.pre_given.emplace_back(field);
        }
    };
    give(!opts.mean.empty(), "mean");
    give(!opts.std.empty(), "std");
    give(opts.scale >= 0, "scale");
    give(!opts.channel_order.empty(), "channel_order");
    give(!opts.layout.empty(), "layout");
    req.pre.mean = opts.mean;
    req.pre.std = opts.std;
    req.pre.scale = opts.scale;
    req.pre.channel_order = opts.channel_order;
    req.pre.layout = opts.layout;
    const platform::RunReport report = p->regress(req);
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    return finish_run("regress", report, out.get(), nullptr);
}

}  // namespace npu::app
