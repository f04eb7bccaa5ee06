// npusim compile --target T: an ONNX model into the program format of the platform T names (the
// built-in configs/T.yaml), through its face; the program and its report are written in place.
#include <cstdio>

#include <fmt/format.h>

#include "app/app.h"
#include "app/platform_loader.h"
#include "configs/embedded.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::app {

platform::CompileReport compile_model(const CompileOptions& opts) {
    if (!configs::has_embedded(opts.target + ".yaml")) {
        throw sim::Error(fmt::format("--target {}: no built-in configs/{}.yaml to compile for",
                                     opts.target, opts.target));
    }
    const std::unique_ptr<platform::Platform> p = load_platform("", {}, opts.target + ".yaml");
    platform::CompileRequest req{opts.onnx, opts.calibrate, opts.output, opts.kmodel_version, {},
                                 {}};
    given_preprocessing(opts.mean, opts.std, opts.scale, opts.channel_order, "", req.pre,
                        req.pre_given);
    req.pre.scale = opts.scale >= 0 ? opts.scale : 1.0;  // defaults for what is not given
    req.pre.channel_order = opts.channel_order.empty() ? "rgb" : opts.channel_order;
    req.pre.layout = "nchw";
    return p->compile(req);
}

int cmd_compile(const CompileOptions& opts) {
    const platform::CompileReport r = compile_model(opts);
    for (const auto& [path, bytes] : r.files) {
        sim::write_file_atomic(path, bytes);
    }
    std::fwrite(r.text.data(), 1, r.text.size(), stdout);
    return kExitOk;
}

}  // namespace npu::app
