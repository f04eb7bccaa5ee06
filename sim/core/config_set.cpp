// ConfigDocument::set: a value of a configuration replaced from outside the file (npusim's
// --set KEY=VALUE, a campaign's `set:`), with the origin kept for messages.
#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::sim {

namespace {

struct Step {
    std::string key;   // a map key, or empty for a list index
    size_t index = 0;  // the list index when key is empty
};

// "a.b[2].c" -> a, b, [2], c; throws with `origin` on an empty key or a malformed index.
std::vector<Step> steps_of(std::string_view path, const std::string& origin) {
    std::vector<Step> out;
    size_t i = 0;
    const auto bad = [&](std::string_view why) {
        throw Error(
            fmt::format("{}: '{}' is not a configuration path ({}; expected keys joined "
                        "by '.' and list items as [i], e.g. kpu.clock_hz)",
                        origin, path, why));
    };
    while (i < path.size()) {
        if (path[i] == '[') {
            const size_t close = path.find(']', i);
            if (close == std::string_view::npos || close == i + 1) {
                bad("an unclosed or empty [ ]");
            }
            std::string why;
            const auto n = parse_u64(path.substr(i + 1, close - i - 1), why);
            if (!n) {
                bad("a list index that is not a number");
            }
            out.push_back({"", static_cast<size_t>(*n)});
            i = close + 1;
            if (i < path.size() && path[i] == '.') {
                ++i;
                if (i == path.size()) {
                    bad("an empty key");
                }
            }
            continue;
        }
        const size_t end = path.find_first_of(".[", i);
        const std::string_view key = path.substr(i, end == std::string_view::npos ? end : end - i);
        if (key.empty()) {
            bad("an empty key");
        }
        out.push_back({std::string(key), 0});
        i = end == std::string_view::npos ? path.size() : end;
        if (i < path.size() && path[i] == '.') {
            ++i;
            if (i == path.size()) {
                bad("an empty key");
            }
        }
    }
    if (out.empty()) {
        bad("an empty path");
    }
    return out;
}

}  // namespace

void ConfigDocument::set(std::string_view path, std::string_view value, const std::string& origin) {
    const std::vector<Step> steps = steps_of(path, origin);
    YAML::Node parsed;
    try {
        parsed = YAML::Load(std::string(value));
    } catch (const YAML::Exception& e) {
        throw Error(fmt::format("{}: the value '{}' is not YAML: {}", origin, value, e.msg));
    }
    if (expanded_nodes(parsed, 100'000) > 100'000) {
        throw Error(
            fmt::format("{}: the value expands to over 100000 nodes (aliases of aliases, "
                        "or an alias inside its own anchor)",
                        origin));
    }
    YAML::Node cur = m_root;
    std::string walked;
    for (size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        const bool last = i + 1 == steps.size();
        if (s.key.empty()) {
            if (!cur.IsSequence() || s.index >= cur.size()) {
                throw Error(fmt::format(
                    "{}: {} has no item [{}] ({})", origin, walked.empty() ? "(top level)" : walked,
                    s.index,
                    cur.IsSequence() ? fmt::format("it has {} items", cur.size()) : "not a list"));
            }
            walked += fmt::format("[{}]", s.index);
        } else {
            if (!cur.IsMap() && cur.IsDefined() && !cur.IsNull()) {
                throw Error(fmt::format("{}: {} is not a map, so it has no key '{}'", origin,
                                        walked.empty() ? "(top level)" : walked, s.key));
            }
            walked += (walked.empty() ? "" : ".") + s.key;
        }
        YAML::Node next = s.key.empty() ? cur[s.index] : cur[s.key];
        if (last) {
            next = parsed;
        } else if (!next.IsDefined() || next.IsNull()) {
            next = YAML::Node(YAML::NodeType::Map);
        }
        cur.reset(next);
    }
    m_overrides[walked] = origin;
}

const std::string* ConfigDocument::origin_of(const std::string& path) const {
    for (const auto& [p, origin] : m_overrides) {
        if (path.compare(0, p.size(), p) == 0 &&
            (path.size() == p.size() || path[p.size()] == '.' || path[p.size()] == '[')) {
            return &origin;
        }
    }
    return nullptr;
}

}  // namespace npu::sim
