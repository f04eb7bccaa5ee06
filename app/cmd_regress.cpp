// npusim regress: a compiled program on the simulated platform (the built-in K210 by default)
// against its float ONNX model, per mapped layer and per output, through the platform's face.
// Reports as a table, JSON and JUnit XML; exit 1 when a tolerance is exceeded.
#include <memory>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/report_writer.h"
#include "sim/core/files.h"

namespace npu::app {

void given_preprocessing(const std::vector<double>& mean, const std::vector<double>& std,
                         double scale, const std::string& channel_order, const std::string& layout,
                         platform::Preprocessing& pre, std::vector<std::string>& given) {
    const auto give = [&](bool is_given, const char* field) {
        if (is_given) {
            given.emplace_back(field);
        }
    };
    give(!mean.empty(), "mean");
    give(!std.empty(), "std");
    give(scale >= 0, "scale");
    give(!channel_order.empty(), "channel_order");
    give(!layout.empty(), "layout");
    pre.mean = mean;
    pre.std = std;
    pre.scale = scale;
    pre.channel_order = channel_order;
    pre.layout = layout;
}

platform::RegressRequest regress_request(const RegressOptions& opts) {
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
    given_preprocessing(opts.mean, opts.std, opts.scale, opts.channel_order, opts.layout, req.pre,
                        req.pre_given);
    return req;
}

int cmd_regress(const RegressOptions& opts) {
    const std::unique_ptr<platform::Platform> p =
        load_platform(opts.platform, opts.set, default_platform(opts.platform_options));
    check_platform_options(*p, opts.platform_options);
    const platform::RunReport report = p->regress(regress_request(opts));
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    return finish_run("regress", report, out.get(), nullptr);
}

}  // namespace npu::app
