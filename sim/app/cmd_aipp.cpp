// npusim aipp: one AIPP load-image job on an image, the tile as .npy and PNG, a report with the
// bytes moved and the cycles of the cost model.
#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/aipp/aipp_cost.h"
#include "models/aipp/aipp_func.h"
#include "platforms/ascend/aipp_job.h"
#include "platforms/ascend/aipp_source.h"
#include "sim/app/app.h"
#include "sim/app/embedded.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"

namespace npu::app {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

sim::ConfigDocument open_config(const std::string& path, std::string& source) {
    if (!path.empty()) {
        source = path;
        return sim::ConfigDocument::load_file(path);
    }
    for (const EmbeddedFile& f : embedded_configs()) {
        if (std::strcmp(f.name, "aipp.yaml") == 0) {
            source = "<built-in configs/aipp.yaml>";
            return sim::ConfigDocument::parse(f.text, source);
        }
    }
    NPU_ASSERT(false, "built-in aipp.yaml missing");
}

ascend::SourceImage read_source(const std::string& path, const ascend::AippJob& job) {
    const aipp::InputFormat f = job.params.format;
    if (path.empty()) {
        ascend::SourceImage s = ascend::from_rgb(sim::test_scene(240, 320), f);
        s.conversion = "built-in 320x240 scene, " + s.conversion;
        return s;
    }
    if (ends_with(path, ".npy")) {
        return ascend::from_array(sim::read_npy(path), f, path);
    }
    for (const char* raw : {".yuv", ".nv12", ".nv21", ".raw", ".rgb", ".bin"}) {
        if (ends_with(path, raw)) {
            return ascend::from_raw(sim::read_file(path), f, job.raw_width, job.raw_height, path);
        }
    }
    return ascend::from_rgb(sim::read_image(path), f);
}

// A viewable PNG of the tile: channels 0..2 (or 0 alone), uint8 as is, int8 + 128, half scaled
// from its minimum..maximum to 0..255.
std::vector<uint8_t> preview(const sim::Tensor& tile, uint32_t channels) {
    const auto h = static_cast<size_t>(tile.dim(0)), w = static_cast<size_t>(tile.dim(1));
    const auto c0 = static_cast<size_t>(tile.dim(2));
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (size_t i = 0; i < h * w; ++i) {
        for (size_t k = 0; k < channels; ++k) {
            const double v = tile.get_f64(i * c0 + k);
            lo = std::min(lo, v), hi = std::max(hi, v);
        }
    }
    std::vector<uint8_t> nchw(channels * h * w);
    for (size_t k = 0; k < channels; ++k) {
        for (size_t i = 0; i < h * w; ++i) {
            const double v = tile.get_f64(i * c0 + k);
            double out = v;
            if (tile.dtype() == sim::DType::i8) {
                out = v + 128;
            } else if (tile.dtype() == sim::DType::f16) {
                out = hi > lo ? (v - lo) * 255 / (hi - lo) : 0;
            }
            nchw[k * h * w + i] = static_cast<uint8_t>(std::clamp(out, 0.0, 255.0));
        }
    }
    return sim::encode_png(nchw.data(), static_cast<int>(channels), static_cast<int>(h),
                           static_cast<int>(w));
}

}  // namespace

int cmd_aipp(const AippOptions& opts) {
    std::string source;
    sim::ConfigDocument doc = open_config(opts.config, source);
    ascend::AippJob job = ascend::read_aipp_job(doc.root().child("aipp"));
    doc.finish();
    const ascend::SourceImage src = read_source(opts.input, job);
    aipp::LoadParams& l = job.load;
    if (!job.src_horiz_size_given) {
        l.src_horiz_size = src.width;
    }
    const std::vector<std::string> problems = aipp::check(job.params, l, src.height);
    if (!problems.empty()) {
        std::string msg = source + ": AIPP parameters: " + problems.front();
        for (size_t i = 1; i < problems.size(); ++i) {
            msg += "; " + problems[i];
        }
        throw sim::Error(msg);
    }
    const aipp::Geometry g = aipp::geometry(job.params, l);
    const sim::DType dt = job.params.output == aipp::OutputType::f16  ? sim::DType::f16
                          : job.params.output == aipp::OutputType::i8 ? sim::DType::i8
                                                                      : sim::DType::u8;
    sim::Tensor tile(dt, {g.height, g.width, g.c0});
    aipp::load_image(job.params, l, job.fidelity, src.view(), tile.bytes());
    // The tool places src0 at GM address 0, src1 right after it and the tile at L1 address 0.
    const aipp::AippCost cost = aipp::aipp_cost(job.params, l, job.timing, {0, src.src0.size(), 0});
    const double time_us = static_cast<double>(cost.total_ps) / 1e6;

    // The job is cheap: the output directory is made only once it has succeeded.
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    fmt::print("npusim {}: AIPP {} -> {} ({})\n", version(), aipp::format_name(job.params.format),
               aipp::output_type_name(job.params.output), source);
    fmt::print("input: {} {}x{} ({})\n", opts.input.empty() ? "<built-in scene>" : opts.input,
               src.width, src.height, src.conversion);
    fmt::print("crop {}x{} at ({}, {}) of a {}-wide source, pads t{} b{} l{} r{} (mode {})\n",
               l.horiz_size, g.vert_size, l.horiz_start, l.vert_start, l.src_horiz_size, g.top_pad,
               g.bot_pad, l.left_pad, l.right_pad, job.params.padding_mode);
    fmt::print("tile: {} x {} pixels x {} elements ({} image channels), {} bytes\n", g.height,
               g.width, g.c0, g.channels, cost.write_bytes);
    fmt::print(
        "cost: {} cycles ({:.3f} us at {}): start {} + rows {} + max(read {} B in {} bus "
        "cycles, write {} B in {} bus cycles)\n",
        cost.total_cycles, time_us, sim::format_frequency(job.timing.clock_hz), cost.start_cycles,
        cost.row_cycles, cost.read_bytes, cost.read_bus_cycles, cost.write_bytes,
        cost.write_bus_cycles);
    if (out) {
        nlohmann::ordered_json j;
        j["tool"] = "npusim";
        j["version"] = version();
        j["command"] = "aipp";
        j["config"] = source;
        j["input"] = {{"file", opts.input.empty() ? "<built-in scene>" : opts.input},
                      {"width", src.width},
                      {"height", src.height},
                      {"preprocessing", src.conversion}};
        j["format"] = aipp::format_name(job.params.format);
        j["output_type"] = aipp::output_type_name(job.params.output);
        j["tile"] = {{"height", g.height},
                     {"width", g.width},
                     {"c0", g.c0},
                     {"image_channels", g.channels},
                     {"bytes", cost.write_bytes}};
        j["cost"] = {{"read_bytes", cost.read_bytes},
                     {"write_bytes", cost.write_bytes},
                     {"read_bus_cycles", cost.read_bus_cycles},
                     {"write_bus_cycles", cost.write_bus_cycles},
                     {"row_cycles", cost.row_cycles},
                     {"start_cycles", cost.start_cycles},
                     {"total_ps", cost.total_ps},
                     {"total_cycles", cost.total_cycles},
                     {"time_us", time_us},
                     {"clock_hz", job.timing.clock_hz},
                     {"addresses", "src0 at GM 0, src1 right after it, the tile at L1 0"}};
        out->write_bytes("output.npy", sim::encode_npy(tile));
        out->write_bytes("output.png", preview(tile, g.channels >= 3 ? 3 : 1));
        out->write_text("report.json", j.dump(2) + "\n");
        out->commit();
        fmt::print("wrote {} to {}\n", fmt::join(out->files(), ", "), out->dir().string());
    }
    return kExitOk;
}

}  // namespace npu::app
