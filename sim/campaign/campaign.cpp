#include "sim/campaign/campaign.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/text.h"

namespace npu::campaign {

namespace {

namespace fs = std::filesystem;

const std::set<std::string>& commands() {
    static const std::set<std::string> c{"run", "estimate", "regress"};
    return c;
}

// A campaign's words reach command lines, scripts and terminals: no control characters.
std::string words(const sim::ConfigNode& node, const std::string& key, std::string value) {
    if (const size_t at = sim::control_char_at(value); at != std::string::npos) {
        node.error_at(key, fmt::format("control character {:#04x} in a campaign value (a name, "
                                       "option or setting): not allowed",
                                       static_cast<unsigned char>(value[at])));
    }
    return value;
}

// A value that names a file: it has a '/' or ends in an extension npusim reads.
bool names_a_file(const std::string& v) {
    static const char* const kExt[] = {".yaml", ".yml",  ".onnx", ".kmodel", ".npy", ".png",
                                       ".jpg",  ".jpeg", ".bmp",  ".csv",    ".json"};
    if (v.find('/') != std::string::npos) {
        return true;
    }
    for (const char* e : kExt) {
        const std::string ext(e);
        if (v.size() > ext.size() && v.compare(v.size() - ext.size(), ext.size(), ext) == 0) {
            return true;
        }
    }
    return false;
}

// A map of option name -> scalar (true: a flag; false: left out).
std::vector<Option> read_options(const std::optional<sim::ConfigNode>& node,
                                 const std::string& base_dir) {
    std::vector<Option> out;
    if (!node || !node->valid()) {
        return out;
    }
    const sim::ConfigNode& map = *node;
    if (!map.is_map()) {
        map.error("expected a map of npusim options (name: value)");
        return out;
    }
    for (const std::string& key : map.keys()) {
        words(map, key, key);
        if (key.empty() || key[0] == '-' || key == "out") {
            map.error_at(key, key == "out" ? "the campaign chooses each job's --out"
                                           : "expected an option name without dashes");
            continue;
        }
        std::string v = words(map, key, map.get<std::string>(key, ""));
        if (v == "false") {
            continue;
        }
        if (v != "true" && names_a_file(v) && !fs::path(v).is_absolute() && !base_dir.empty()) {
            v = (fs::path(base_dir) / v).lexically_normal().string();
        }
        out.emplace_back(key, v);
    }
    return out;
}

// A map of platform setting -> value (KEY a path under platform:, as npusim --set takes it).
std::vector<Option> read_settings(const std::optional<sim::ConfigNode>& node) {
    std::vector<Option> out;
    if (!node || !node->valid()) {
        return out;
    }
    if (!node->is_map()) {
        node->error("expected a map of platform settings (e.g. kpu.clock_hz: 200MHz)");
        return out;
    }
    for (const std::string& key : node->keys()) {
        words(*node, key, key);
        out.emplace_back("set", key + "=" + words(*node, key, node->get<std::string>(key, "")));
    }
    return out;
}

std::string safe(const std::string& s) {
    std::string out;
    for (char ch : s) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                        (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        out += ok ? ch : '-';
    }
    return out;
}

Campaign read(sim::ConfigDocument& doc, const std::string& base_dir) {
    const sim::ConfigNode root = doc.root().child("campaign");
    Campaign c;
    c.file = doc.name();
    c.name = words(root, "name", root.get<std::string>("name"));
    c.command = root.get<std::string>("command");
    if (!c.command.empty() && commands().count(c.command) == 0) {
        root.error_at("command",
                      fmt::format("expected run, estimate or regress, got '{}'", c.command));
    }
    c.timeout_s = root.get<double>("timeout_s", 0.0, 0.0, 1e7);
    c.options = read_options(root.optional_node("options"), base_dir);
    for (Option& o : read_settings(root.optional_node("set"))) {
        c.options.push_back(std::move(o));
    }
    std::set<std::string> axis_names;
    for (const sim::ConfigNode& a : root.items("axes")) {
        Axis axis;
        axis.name = words(a, "name", a.get<std::string>("name"));
        if (!axis_names.insert(axis.name).second) {
            a.error_at("name", fmt::format("axis '{}' is named twice", axis.name));
        }
        std::set<std::string> value_names;
        for (const sim::ConfigNode& v : a.items("values")) {
            AxisValue av;
            av.name = words(v, "name", v.get<std::string>("name"));
            if (!value_names.insert(av.name).second) {
                v.error_at("name", fmt::format("value '{}' is named twice in axis '{}'", av.name,
                                               axis.name));
            }
            av.options = read_options(v.optional_node("options"), base_dir);
            for (Option& o : read_settings(v.optional_node("set"))) {
                av.options.push_back(std::move(o));
            }
            axis.values.push_back(std::move(av));
        }
        if (axis.values.empty()) {
            a.error_at("values", "an axis needs at least one value");
        }
        c.axes.push_back(std::move(axis));
    }
    doc.finish();
    return c;
}

}  // namespace

Campaign load(const std::string& path) {
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    return read(doc, fs::path(path).parent_path().string());
}

Campaign parse(const std::string& yaml, const std::string& name, const std::string& base_dir) {
    sim::ConfigDocument doc = sim::ConfigDocument::parse(yaml, name);
    return read(doc, base_dir);
}

std::vector<Job> jobs(const Campaign& c) {
    constexpr size_t kMaxJobs = 10'000'000;
    size_t total = 1;
    for (const Axis& a : c.axes) {
        if (a.values.empty() || total > kMaxJobs / a.values.size()) {
            throw sim::Error(fmt::format("{}: the axes make {} jobs; a campaign holds 1 to {}",
                                         c.file, a.values.empty() ? "no" : "over 10 million",
                                         kMaxJobs));
        }
        total *= a.values.size();
    }
    std::vector<Job> out;
    out.reserve(total);
    for (size_t id = 0; id < total; ++id) {
        Job j;
        j.id = id;
        j.options = c.options;
        size_t rest = id, stride = total;
        for (const Axis& a : c.axes) {  // the first axis varies slowest
            stride /= a.values.size();
            const AxisValue& v = a.values[rest / stride];
            rest %= stride;
            j.axes.emplace_back(a.name, v.name);
            j.name += (j.name.empty() ? "" : ",") + a.name + "=" + v.name;
            j.options.insert(j.options.end(), v.options.begin(), v.options.end());
        }
        out.push_back(std::move(j));
    }
    return out;
}

std::pair<size_t, size_t> parse_shard(const std::string& text) {
    const size_t slash = text.find('/');
    char* end = nullptr;
    if (slash != std::string::npos) {
        const unsigned long i = std::strtoul(text.c_str(), &end, 10);
        if (end == text.c_str() + slash) {
            const unsigned long n = std::strtoul(text.c_str() + slash + 1, &end, 10);
            if (*end == '\0' && slash > 0 && slash + 1 < text.size() && n > 0 && i < n) {
                return {i, n};
            }
        }
    }
    throw sim::Error(fmt::format("--shard {}: expected i/N with 0 <= i < N, e.g. 0/8", text));
}

std::vector<std::string> command_line(const Campaign& c, const Job& j, const std::string& out_dir) {
    std::vector<std::string> args{c.command};
    for (const Option& o : j.options) {
        args.push_back("--" + o.first);
        if (o.second != "true") {
            args.push_back(o.second);
        }
    }
    args.push_back("--out");
    args.push_back(out_dir);
    return args;
}

std::string job_dir_name(const Job& j) {
    return fmt::format("{:05}_{}", j.id, safe(j.name));
}

}  // namespace npu::campaign
