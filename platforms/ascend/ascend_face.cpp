#include "platforms/ascend/ascend_face.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "configs/embedded.h"
#include "models/aipp/aipp_cost.h"
#include "platforms/ascend/aipp_job.h"
#include "platforms/ascend/aipp_source.h"
#include "platforms/ascend/ascend_platform.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::ascend {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The job file, or the built-in configs/aipp.yaml.
AippJob read_job(const std::string& path, std::string& source) {
    sim::ConfigDocument doc =
        path.empty() ? sim::ConfigDocument::parse(configs::embedded_text("aipp.yaml"),
                                                  configs::embedded_source("aipp.yaml"))
                     : sim::ConfigDocument::load_file(path);
    source = path.empty() ? configs::embedded_source("aipp.yaml") : path;
    AippJob job = read_aipp_job(doc.root().child("aipp"));
    doc.finish();
    return job;
}

SourceImage read_source(const std::string& path, const AippJob& job) {
    const aipp::InputFormat f = job.params.format;
    if (path.empty()) {
        SourceImage s = from_rgb(sim::test_scene(240, 320), f);
        s.conversion = "built-in 320x240 scene, " + s.conversion;
        return s;
    }
    if (ends_with(path, ".npy")) {
        return from_array(sim::read_npy(path), f, path);
    }
    for (const char* raw : {".yuv", ".nv12", ".nv21", ".raw", ".rgb", ".bin"}) {
        if (ends_with(path, raw)) {
            return from_raw(sim::read_file(path), f, job.raw_width, job.raw_height, path);
        }
    }
    return from_rgb(sim::read_image(path), f);
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

sim::DType tile_type(aipp::OutputType t) {
    return t == aipp::OutputType::f16  ? sim::DType::f16
           : t == aipp::OutputType::i8 ? sim::DType::i8
                                       : sim::DType::u8;
}

// The job as the user gave it, checked before anything is simulated.
struct Job {
    std::string source;
    AippJob job;
    SourceImage src;
};

Job prepare(const platform::RunRequest& request) {
    Job j;
    j.job = read_job(request.model, j.source);
    j.src = read_source(request.input, j.job);
    aipp::LoadParams& l = j.job.load;
    if (!j.job.src_horiz_size_given) {
        l.src_horiz_size = j.src.width;
    }
    const std::vector<std::string> problems = aipp::check(j.job.params, l, j.src.height);
    if (!problems.empty()) {
        std::string msg = j.source + ": AIPP parameters: " + problems.front();
        for (size_t i = 1; i < problems.size(); ++i) {
            msg += "; " + problems[i];
        }
        throw sim::Error(msg);
    }
    return j;
}

}  // namespace

AscendFace::AscendFace(AscendConfig cfg, std::string source)
    : Platform("ascend", std::move(source))
    , m_cfg(std::move(cfg)) {
}

std::string AscendFace::describe() const {
    sim::install_report_handler();
    AscendPlatform soc("ascend", m_cfg, engine_config(m_cfg, {}, {}));
    const platform::PlatformConfig& c = m_cfg.platform;
    std::string s = fmt::format("platform {} (ascend), from {}\n", c.name, source());
    auto it = std::back_inserter(s);
    fmt::format_to(it, "scalar unit bus: {} B/beat, {} cycles per access, {}\n",
                   c.bus.data_width_bytes, c.bus.burst_latency_cycles,
                   sim::format_frequency(c.bus.clock_hz));
    fmt::format_to(it, "\naddress map:\n{}", soc.address_map().table());
    fmt::format_to(it,
                   "\nAIPP: SPR0..SPR9, LOAD_SIZE/START/PAD, DST_ADDR, DST_TYPE, CMD, STATUS, "
                   "INT_EN at {:#x} (models/aipp/aipp_regs.h); timing from each job file\n",
                   m_cfg.aipp_base_addr);
    return s;
}

namespace {

// What a finished job reports: the tile, the cost model's figures and the simulated ones.
struct Outcome {
    const Job& job;
    const AippRun& run;
    aipp::Geometry g;
    aipp::AippCost cost;
    nlohmann::ordered_json stats;  // the engine's
    std::string input_name;
};

std::string summary(const Outcome& o, const std::string& platform_line) {
    const aipp::Params& p = o.job.job.params;
    const aipp::LoadParams& l = o.job.job.load;
    const aipp::AippCost& cost = o.cost;
    const uint64_t time_ps = o.run.end_ps - o.run.start_ps;
    std::string s = fmt::format("npusim {}: AIPP {} -> {} ({}) on {}\n", sim::npusim_version(),
                                aipp::format_name(p.format), aipp::output_type_name(p.output),
                                o.job.source, platform_line);
    auto it = std::back_inserter(s);
    fmt::format_to(it, "input: {} {}x{} ({})\n", o.input_name, o.job.src.width, o.job.src.height,
                   o.job.src.conversion);
    fmt::format_to(it,
                   "crop {}x{} at ({}, {}) of a {}-wide source, pads t{} b{} l{} r{} (mode {})\n",
                   l.horiz_size, o.g.vert_size, l.horiz_start, l.vert_start, l.src_horiz_size,
                   o.g.top_pad, o.g.bot_pad, l.left_pad, l.right_pad, p.padding_mode);
    fmt::format_to(it, "tile: {} x {} pixels x {} elements ({} image channels), {} bytes\n",
                   o.g.height, o.g.width, o.g.c0, o.g.channels, cost.write_bytes);
    fmt::format_to(it,
                   "cost: {} cycles ({:.3f} us at {}): start {} + rows {} + max(read {} B in {} "
                   "bus cycles, write {} B in {} bus cycles)\n",
                   cost.total_cycles, static_cast<double>(cost.total_ps) / 1e6,
                   sim::format_frequency(o.job.job.timing.clock_hz), cost.start_cycles,
                   cost.row_cycles, cost.read_bytes, cost.read_bus_cycles, cost.write_bytes,
                   cost.write_bus_cycles);
    fmt::format_to(it,
                   "simulated: {:.3f} us from CMD.start to the interrupt, GM read {} B, L1 "
                   "written {} B through TLM; {} the cost model\n",
                   static_cast<double>(time_ps) / 1e6,
                   o.stats["read_bytes"]["value"].get<uint64_t>(),
                   o.stats["write_bytes"]["value"].get<uint64_t>(),
                   time_ps == cost.total_ps ? "equal to" : "DIFFERENT FROM");
    return s;
}

// The job as one layer of the record: the engine's own cycles (start, rows), then the longer of
// its two ports (GM read, L1 write: they overlap), each at its clock.
sim::LayerRecord job_layer(const Outcome& o) {
    const aipp::AippTiming& t = o.job.job.timing;
    const aipp::AippCost& c = o.cost;
    sim::LayerRecord l;
    l.op = "AIPP load image";
    l.shape = fmt::format("{}x{} {} -> {}x{}x{} {}", o.job.src.width, o.job.src.height,
                          aipp::format_name(o.job.job.params.format), o.g.height, o.g.width, o.g.c0,
                          aipp::output_type_name(o.job.job.params.output));
    l.start_ps = o.run.start_ps, l.end_ps = o.run.end_ps;
    const uint64_t own = c.start_cycles + c.row_cycles;
    const uint64_t own_ps = aipp::cycles_to_ps(own, t.clock_hz);
    l.engines.push_back({"AIPP",
                         own_ps,
                         "aipp",
                         static_cast<double>(t.clock_hz),
                         {{"start", c.start_cycles}, {"rows", c.row_cycles}}});
    const uint64_t read_ps = aipp::cycles_to_ps(c.read_bus_cycles, t.gm_bus.clock_hz),
                   write_ps = aipp::cycles_to_ps(c.write_bus_cycles, t.l1_bus.clock_hz);
    const uint64_t wall = o.run.end_ps - o.run.start_ps;
    const uint64_t port_ps = wall > own_ps ? wall - own_ps : 0;
    if (read_ps > write_ps) {
        l.engines.push_back({"GM read",
                             port_ps,
                             "gm bus",
                             static_cast<double>(t.gm_bus.clock_hz),
                             {{"transfer", c.read_bus_cycles}}});
    } else {
        l.engines.push_back({"L1 write",
                             port_ps,
                             "l1 bus",
                             static_cast<double>(t.l1_bus.clock_hz),
                             {{"transfer", c.write_bus_cycles}}});
    }
    const auto q = [](const char* name, uint64_t v, const char* unit) {
        return sim::Quantity{name, static_cast<double>(v), unit};
    };
    l.measures = {q("read_bytes", c.read_bytes, "bytes"),
                  q("write_bytes", c.write_bytes, "bytes"),
                  q("read_bus_cycles", c.read_bus_cycles, "cycles"),
                  q("write_bus_cycles", c.write_bus_cycles, "cycles"),
                  q("total_cycles", c.total_cycles, "cycles"),
                  q("cost_ps", c.total_ps, "ps")};
    return l;
}

sim::RunRecord run_record(const Outcome& o, const std::string& name, const std::string& source,
                          const sim::Tensor& tile) {
    const aipp::Params& p = o.job.job.params;
    const uint64_t time_ps = o.run.end_ps - o.run.start_ps;
    sim::RunRecord r;
    r.command = "run";
    r.mode = "timed";
    r.platform = {"ascend",
                  name,
                  source,
                  {{"aipp_clock_hz", static_cast<double>(o.job.job.timing.clock_hz), "Hz"}}};
    r.program = {o.job.source, "AIPP job", {}};
    r.inputs.push_back({"source image", o.input_name,
                        std::vector<int64_t>{o.job.src.height, o.job.src.width},
                        aipp::format_name(p.format), o.job.src.conversion, "", std::nullopt});
    r.outputs.push_back(
        {"tile", "output.npy", std::vector<int64_t>(tile.shape().begin(), tile.shape().end()),
         sim::dtype_name(tile.dtype()),
         fmt::format("{} image channels; src0 at GM {:#x}, src1 at GM {:#x}, the "
                     "tile at L1 {:#x}",
                     o.g.channels, o.run.src0_addr, o.run.src1_addr, o.run.dst_addr),
         "", std::nullopt});
    r.layers.push_back(job_layer(o));
    r.totals = {{"time_ps", static_cast<double>(time_ps), "ps"},
                {"cost_ps", static_cast<double>(o.cost.total_ps), "ps"},
                {"total_cycles", static_cast<double>(o.cost.total_cycles), "cycles"}};
    // The engine's time from CMD.start to the interrupt is its cost model's (one formula).
    const uint64_t off =
        time_ps > o.cost.total_ps ? time_ps - o.cost.total_ps : o.cost.total_ps - time_ps;
    r.checks.push_back({"simulated_minus_cost", static_cast<double>(off), "<=", 0, "ps", off == 0,
                        std::nullopt, ""});
    r.stats = o.stats;
    return r;
}

}  // namespace

platform::RunReport AscendFace::run(const platform::RunRequest& request) {
    if (!request.network.empty() || request.functional) {
        throw sim::Error(source() +
                         ": the Ascend AIPP platform runs one job file (--model or "
                         "npusim aipp --config), timed");
    }
    const Job j = prepare(request);
    const aipp::Params& p = j.job.params;
    const aipp::LoadParams& l = j.job.load;
    const AippProgram program{p, l, j.src.src0, j.src.src1};
    sim::Session session({nullptr, request.verbose});
    AscendPlatform soc("ascend", m_cfg, engine_config(m_cfg, j.job.timing, j.job.fidelity));
    soc.load(program);
    session.run();
    const AippRun& r = soc.result();
    if (!r.done) {  // returned, not thrown, after a simulation (platform::RunReport::error)
        platform::RunReport failed;
        failed.error = fmt::format("{}: {}", j.source,
                                   r.error.empty() ? "the AIPP job did not finish" : r.error);
        return failed;
    }
    const Outcome o{j,
                    r,
                    aipp::geometry(p, l),
                    aipp::aipp_cost(p, l, j.job.timing, {r.src0_addr, r.src1_addr, r.dst_addr}),
                    soc.aipp.stats().to_json(),
                    request.input.empty() ? "<built-in scene>" : request.input};
    sim::Tensor tile(tile_type(p.output), {o.g.height, o.g.width, o.g.c0});
    std::copy(r.tile.begin(), r.tile.end(), tile.bytes());
    platform::RunReport rep;
    rep.text = summary(o, fmt::format("{} ({})", m_cfg.platform.name, source()));
    rep.record = run_record(o, m_cfg.platform.name, source(), tile);
    rep.passed = rep.record->passed();
    rep.files.push_back({"output.npy", sim::encode_npy(tile)});
    rep.files.push_back({"output.png", preview(tile, o.g.channels >= 3 ? 3 : 1)});
    return rep;
}

platform::PlatformKind ascend_platform_kind() {
    return {"ascend",
            "an Ascend AI Core's AIPP load-image engine between GM and L1 "
            "(configs/ascend.yaml)",
            [](const sim::ConfigNode& p, const std::string& source) {
                return std::make_unique<AscendFace>(read_ascend_config(p), source);
            },
            false};
}

}  // namespace npu::ascend
