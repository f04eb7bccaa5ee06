#include "platforms/finn/finn_sweep_file.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "platforms/finn/finn_import.h"
#include "sim/core/error.h"
#include "sim/core/json_text.h"

namespace npu::finn {

namespace {

using Json = nlohmann::json;

// An attribute's values: a list of positive integers, or "all" (every value the layer allows).
std::vector<uint64_t> values_of(const Json& v, const LayerOp& op, const std::string& attr,
                                const std::string& where) {
    if (v == "all") {
        return allowed_values(op, attr);
    }
    if (!v.is_array() || v.empty()) {
        throw sim::Error(where + ": expected a list of positive integers or \"all\"");
    }
    std::vector<uint64_t> out;
    for (const Json& x : v) {
        if (!x.is_number_integer() || x.get<int64_t>() < 1 || x.get<int64_t>() > (1 << 20)) {
            throw sim::Error(
                fmt::format("{}: {} is not an integer from 1 to 2^20", where, sim::json_text(x)));
        }
        const auto u = x.get<uint64_t>();
        if (std::find(out.begin(), out.end(), u) != out.end()) {
            throw sim::Error(fmt::format("{}: {} is given twice", where, u));
        }
        out.push_back(u);
    }
    return out;
}

// The entry for layer `l`: its own name's, else its op type's (with or without _hls/_rtl).
const Json* entry_for(const Json& file, const Layer& l) {
    if (file.contains(l.name)) {
        return &file[l.name];
    }
    for (const auto& [key, value] : file.items()) {
        if (base_op(key) == op_name(l.op)) {
            return &value;
        }
    }
    return nullptr;
}

// Every key must name a layer of the graph or an op type in it.
void check_keys(const Json& file, const Design& d, const std::string& path) {
    for (const auto& item : file.items()) {
        const std::string& key = item.key();
        const Json& value = item.value();
        const bool known = std::any_of(d.layers.begin(), d.layers.end(), [&](const Layer& l) {
            return !l.inserted && (l.name == key || op_name(l.op) == base_op(key));
        });
        if (!known) {
            throw sim::Error(fmt::format(
                "{}: {}: the graph has no layer and no op type of that name", path, key));
        }
        if (!value.is_object()) {
            throw sim::Error(fmt::format("{}: {}: expected an object of attributes", path, key));
        }
    }
}

std::vector<Knob> read_knobs(const Json& file, const Design& d, const std::string& path) {
    check_keys(file, d, path);
    std::vector<Knob> knobs;
    for (size_t i = 0; i < d.layers.size(); ++i) {
        const Layer& l = d.layers[i];
        const Json* e = l.inserted ? nullptr : entry_for(file, l);
        if (e == nullptr) {
            continue;
        }
        const std::vector<std::string> attrs = folding_attributes(l.op);
        for (const auto& [attr, v] : e->items()) {
            const std::string where = fmt::format("{}: {}: {}", path, l.name, attr);
            if (std::find(attrs.begin(), attrs.end(), attr) == attrs.end()) {
                throw sim::Error(fmt::format(
                    "{}: a {} folds {}", where, op_name(l.op),
                    attrs.empty() ? "nothing" : fmt::format("{}", fmt::join(attrs, ", "))));
            }
            knobs.push_back({i, attr, values_of(v, l.op, attr, where)});
        }
    }
    if (knobs.empty()) {
        throw sim::Error(path + ": no layer of the graph has values to sweep");
    }
    return knobs;
}

}  // namespace

std::vector<Knob> read_sweep(const std::vector<uint8_t>& bytes, const Design& d,
                             const std::string& path) {
    Json j;
    try {
        j = Json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(fmt::format("{}: not JSON: {}", path, e.what()));
    }
    if (!j.is_object()) {
        throw sim::Error(path + ": expected a JSON object of layer names or op types");
    }
    return read_knobs(j, d, path);
}

}  // namespace npu::finn
