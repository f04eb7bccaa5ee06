#include "platforms/k210/estimate.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::k210 {

namespace {

// A value, a list of values, or {from, to, step} (inclusive, step > 0).
std::vector<int> read_values(const sim::ConfigNode& sweep, const char* key, int fallback, int lo,
                             int hi) {
    auto node = sweep.optional_node(key);
    if (!node) {
        return {fallback};
    }
    std::vector<int> out;
    auto add = [&](const sim::ConfigNode& n) {
        const int v = n.as<int>();
        if (v < lo || v > hi) {
            n.error(fmt::format("expected a value in [{}, {}], got {}", lo, hi, v));
            return;
        }
        out.push_back(v);
    };
    if (node->is_sequence()) {
        for (const sim::ConfigNode& e : node->elements()) {
            add(e);
        }
        if (out.empty()) {
            node->error("expected at least one value");
        }
    } else if (node->is_map()) {
        const int from = node->get<int>("from"), to = node->get<int>("to"),
                  step = node->get<int>("step", 1);
        if (step <= 0 || to < from) {
            node->error(fmt::format("expected from <= to and step > 0, got from {} to {} step {}",
                                    from, to, step));
            return {fallback};
        }
        for (int v = from; v <= to; v += step) {
            if (v < lo || v > hi) {
                node->error(fmt::format("the range reaches {}, outside [{}, {}]", v, lo, hi));
                break;
            }
            out.push_back(v);
        }
    } else {
        add(*node);
    }
    return out.empty() ? std::vector<int>{fallback} : out;
}

}  // namespace

size_t Sweep::combinations() const {
    return in_channels.size() * height.size() * width.size() * out_channels.size() * kernel.size() *
           depthwise.size() * pool.size() * weight_bits.size();
}

std::vector<Sweep> read_sweeps(const sim::ConfigNode& root, size_t max_combinations) {
    std::vector<Sweep> out;
    for (const sim::ConfigNode& n : root.items("layers")) {
        Sweep s;
        s.name = n.get<std::string>("name", fmt::format("layer{}", out.size()));
        s.in_channels = read_values(n, "in_channels", 1, 1, 1024);
        s.height = read_values(n, "height", 1, 1, 512);
        s.width = read_values(n, "width", 1, 1, 1024);
        s.out_channels = read_values(n, "out_channels", 1, 1, 1024);
        s.kernel = read_values(n, "kernel", 3, 1, 3);
        s.depthwise = read_values(n, "depthwise", 0, 0, 1);
        s.pool = read_values(n, "pool", 0, 0, 9);
        s.weight_bits = read_values(n, "weight_bits", 8, 8, 16);
        for (int b : s.weight_bits) {
            if (b != 8 && b != 16) {
                n.error_at("weight_bits", fmt::format("expected 8 or 16, got {}", b));
            }
        }
        if (s.combinations() > max_combinations) {
            n.error(fmt::format("{} combinations, more than the {} allowed", s.combinations(),
                                max_combinations));
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<EstimateRow> estimate(const std::vector<Sweep>& sweeps, const kpu::KpuTiming& timing) {
    std::vector<EstimateRow> rows;
    for (const Sweep& s : sweeps) {
        rows.reserve(rows.size() + s.combinations());
        for (int ic : s.in_channels)
            for (int h : s.height)
                for (int w : s.width)
                    for (int oc : s.out_channels)
                        for (int k : s.kernel)
                            for (int dw : s.depthwise)
                                for (int pool : s.pool)
                                    for (int bits : s.weight_bits) {
                                        EstimateRow r;
                                        r.name = s.name;
                                        r.shape = {ic,
                                                   h,
                                                   w,
                                                   dw != 0 ? ic : oc,
                                                   k,
                                                   dw != 0,
                                                   static_cast<uint32_t>(pool),
                                                   bits == 8};
                                        try {
                                            const kpu::LayerArgs a = kpu::build_layer(r.shape);
                                            r.cost = kpu::layer_cost(a, r.shape.eight_bit, timing);
                                        } catch (const sim::Error& e) {
                                            r.error = e.what();
                                        }
                                        rows.push_back(std::move(r));
                                    }
    }
    return rows;
}

namespace {
double us(uint64_t cycles, uint64_t hz) {
    return static_cast<double>(cycles) * 1e6 / static_cast<double>(hz);
}
}  // namespace

std::string to_csv(const std::vector<EstimateRow>& rows, uint64_t clock_hz) {
    std::string s =
        "name,in_channels,height,width,out_channels,kernel,depthwise,pool,weight_bits,macs,"
        "total_cycles,fixed_cycles,param_fetch_cycles,compute_cycles,exposed_fetch_cycles,"
        "weight_fetch_cycles,output_cycles,passes,input_lines,output_lines,weight_bytes,param_"
        "bytes,"
        "time_us,utilization,error\n";
    for (const EstimateRow& r : rows) {
        const kpu::LayerShape& p = r.shape;
        const kpu::LayerCost& c = r.cost;
        s += fmt::format(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.4f},\"{}"
            "\"\n",
            r.name, p.in_channels, p.in_height, p.in_width, p.out_channels, p.kernel,
            p.depthwise ? 1 : 0, p.pool_type, p.eight_bit ? 8 : 16, c.macs, c.total_cycles,
            c.fixed_cycles, c.param_fetch_cycles, c.compute_cycles, c.exposed_fetch_cycles,
            c.weight_fetch_cycles, c.output_cycles, c.work.passes, c.work.input_lines,
            c.work.output_lines, c.weight_bytes, c.param_bytes, us(c.total_cycles, clock_hz),
            c.utilization(), r.error);
    }
    return s;
}

nlohmann::ordered_json to_json(const std::vector<EstimateRow>& rows, uint64_t clock_hz) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const EstimateRow& r : rows) {
        const kpu::LayerShape& p = r.shape;
        const kpu::LayerCost& c = r.cost;
        nlohmann::ordered_json j = {{"name", r.name},
                                    {"in_channels", p.in_channels},
                                    {"height", p.in_height},
                                    {"width", p.in_width},
                                    {"out_channels", p.out_channels},
                                    {"kernel", p.kernel},
                                    {"depthwise", p.depthwise},
                                    {"pool", p.pool_type},
                                    {"weight_bits", p.eight_bit ? 8 : 16}};
        if (!r.error.empty()) {
            j["error"] = r.error;
        } else {
            j["macs"] = c.macs;
            j["total_cycles"] = c.total_cycles;
            j["fixed_cycles"] = c.fixed_cycles;
            j["param_fetch_cycles"] = c.param_fetch_cycles;
            j["compute_cycles"] = c.compute_cycles;
            j["exposed_fetch_cycles"] = c.exposed_fetch_cycles;
            j["weight_fetch_cycles"] = c.weight_fetch_cycles;
            j["output_cycles"] = c.output_cycles;
            j["passes"] = c.work.passes;
            j["input_lines"] = c.work.input_lines;
            j["output_lines"] = c.work.output_lines;
            j["weight_bytes"] = c.weight_bytes;
            j["param_bytes"] = c.param_bytes;
            j["time_us"] = us(c.total_cycles, clock_hz);
            j["utilization"] = c.utilization();
        }
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace npu::k210
