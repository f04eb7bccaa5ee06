#include "sim/core/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::sim {

// ---------------------------------------------------------------- value syntax

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
        s.remove_prefix(1);
    }
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
        s.remove_suffix(1);
    }
    return s;
}

// Magnitude of an unsigned literal: decimal, 0x hex, 0b binary, with optional '_' separators.
std::optional<uint64_t> parse_magnitude(std::string_view s) {
    unsigned base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s.remove_prefix(2);
    }
    if (s.empty() || s.front() == '_' || s.back() == '_') {
        return std::nullopt;
    }
    uint64_t v = 0;
    for (char c : s) {
        if (c == '_') {
            continue;
        }
        unsigned d = 0;
        if (c >= '0' && c <= '9') {
            d = static_cast<unsigned>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = static_cast<unsigned>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            d = static_cast<unsigned>(c - 'A' + 10);
        } else {
            return std::nullopt;
        }
        if (d >= base) {
            return std::nullopt;
        }
        if (v > (std::numeric_limits<uint64_t>::max() - d) / base) {
            return std::nullopt;  // overflow
        }
        v = v * base + d;
    }
    return v;
}

// Splits "12 MiB" into ("12", "MiB").
std::pair<std::string_view, std::string_view> split_suffix(std::string_view s) {
    size_t i = s.size();
    while (i > 0 && std::isalpha(static_cast<unsigned char>(s[i - 1]))) {
        --i;
    }
    // A hex literal ends in letters too: only letters after a non-hex tail are a suffix.
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        return {s, {}};
    }
    return {trim(s.substr(0, i)), s.substr(i)};
}

}  // namespace

std::optional<uint64_t> parse_u64(std::string_view text, std::string& why) {
    auto s = trim(text);
    auto v = parse_magnitude(s);
    if (!v) {
        why = "expected an unsigned integer (decimal, 0x hex or 0b binary) up to 2^64-1";
    }
    return v;
}

std::optional<int64_t> parse_i64(std::string_view text, std::string& why) {
    auto s = trim(text);
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    auto m = parse_magnitude(s);
    const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (!m || *m > limit) {
        why = "expected a signed integer (decimal, 0x hex or 0b binary) in 64 bits";
        return std::nullopt;
    }
    if (neg) {
        return *m == limit ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(*m);
    }
    return static_cast<int64_t>(*m);
}

std::optional<double> parse_f64(std::string_view text, std::string& why) {
    auto s = std::string(trim(text));
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        auto v = parse_magnitude(s);
        if (v) {
            return static_cast<double>(*v);
        }
    }
    std::istringstream in(s);
    in.imbue(std::locale::classic());
    double v = 0;
    in >> v;
    if (s.empty() || in.fail() || !in.eof() || !std::isfinite(v)) {
        why = "expected a finite number";
        return std::nullopt;
    }
    return v;
}

std::optional<uint64_t> parse_size(std::string_view text, std::string& why) {
    auto [num, suffix] = split_suffix(trim(text));
    static const std::pair<std::string_view, unsigned> kUnits[] = {
        {"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    const std::string expected =
        "expected a size in bytes: an integer with optional suffix B, KiB, MiB, GiB or TiB";
    for (const auto& [unit, shift] : kUnits) {
        if (suffix != unit) {
            continue;
        }
        auto v = parse_magnitude(num);
        if (!v || (shift > 0 && *v > (std::numeric_limits<uint64_t>::max() >> shift))) {
            why = expected;
            return std::nullopt;
        }
        return *v << shift;
    }
    if (suffix == "k" || suffix == "K" || suffix == "kB" || suffix == "KB" || suffix == "M" ||
        suffix == "MB" || suffix == "G" || suffix == "GB") {
        why = expected + " ('" + std::string(suffix) +
              "' is ambiguous between powers of 10 and 2; write KiB/MiB/GiB)";
    } else {
        why = expected;
    }
    return std::nullopt;
}

std::optional<uint64_t> parse_frequency(std::string_view text, std::string& why) {
    auto [num, suffix] = split_suffix(trim(text));
    static const std::pair<std::string_view, double> kUnits[] = {
        {"", 1.0}, {"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
    const std::string expected =
        "expected a frequency: a positive number with optional suffix Hz, kHz, MHz or GHz";
    for (const auto& [unit, scale] : kUnits) {
        if (suffix != unit) {
            continue;
        }
        std::string ignored;
        auto v = parse_f64(num, ignored);
        if (!v || *v <= 0 || *v * scale > 1e15) {
            break;
        }
        const double hz = *v * scale;
        if (hz != std::floor(hz)) {
            why = "expected a whole number of Hz";
            return std::nullopt;
        }
        return static_cast<uint64_t>(hz);
    }
    why = expected;
    return std::nullopt;
}

std::optional<uint64_t> parse_duration(std::string_view text, std::string& why) {
    auto [num, suffix] = split_suffix(trim(text));
    static const std::pair<std::string_view, double> kUnits[] = {
        {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
    for (const auto& [unit, scale] : kUnits) {
        if (suffix != unit) {
            continue;
        }
        std::string ignored;
        const auto v = parse_f64(num, ignored);
        if (v && *v > 0 && *v * scale <= 1e18) {
            return static_cast<uint64_t>(std::llround(*v * scale));
        }
        break;
    }
    why = "expected a duration: a positive number with its unit ps, ns, us, ms or s (e.g. 2s)";
    return std::nullopt;
}

namespace config_detail {

template <typename T>
std::optional<T> convert(const std::string& text, std::string& expected) {
    if constexpr (std::is_same_v<T, std::string>) {
        return text;
    } else if constexpr (std::is_same_v<T, bool>) {
        if (text == "true") {
            return true;
        }
        if (text == "false") {
            return false;
        }
        expected = "expected true or false, got '" + text + "'";
        return std::nullopt;
    } else if constexpr (std::is_floating_point_v<T>) {
        std::string why;
        auto v = parse_f64(text, why);
        if (!v) {
            expected = why + ", got '" + text + "'";
            return std::nullopt;
        }
        return static_cast<T>(*v);
    } else if constexpr (std::is_unsigned_v<T>) {
        std::string why;
        auto v = parse_u64(text, why);
        if (!v) {
            expected = why + ", got '" + text + "'";
            return std::nullopt;
        }
        if (*v > std::numeric_limits<T>::max()) {
            expected = fmt::format("expected an integer in [0, {}], got {}",
                                   std::numeric_limits<T>::max(), text);
            return std::nullopt;
        }
        return static_cast<T>(*v);
    } else {
        static_assert(std::is_signed_v<T> && std::is_integral_v<T>, "unsupported config type");
        std::string why;
        auto v = parse_i64(text, why);
        if (!v) {
            expected = why + ", got '" + text + "'";
            return std::nullopt;
        }
        if (*v < std::numeric_limits<T>::min() || *v > std::numeric_limits<T>::max()) {
            expected =
                fmt::format("expected an integer in [{}, {}], got {}",
                            std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), text);
            return std::nullopt;
        }
        return static_cast<T>(*v);
    }
}

template std::optional<bool> convert<bool>(const std::string&, std::string&);
template std::optional<std::string> convert<std::string>(const std::string&, std::string&);
template std::optional<double> convert<double>(const std::string&, std::string&);
template std::optional<float> convert<float>(const std::string&, std::string&);
template std::optional<uint8_t> convert<uint8_t>(const std::string&, std::string&);
template std::optional<uint16_t> convert<uint16_t>(const std::string&, std::string&);
template std::optional<uint32_t> convert<uint32_t>(const std::string&, std::string&);
template std::optional<uint64_t> convert<uint64_t>(const std::string&, std::string&);
template std::optional<int8_t> convert<int8_t>(const std::string&, std::string&);
template std::optional<int16_t> convert<int16_t>(const std::string&, std::string&);
template std::optional<int32_t> convert<int32_t>(const std::string&, std::string&);
template std::optional<int64_t> convert<int64_t>(const std::string&, std::string&);

}  // namespace config_detail

// ---------------------------------------------------------------- ConfigNode

ConfigNode::ConfigNode(ConfigDocument* doc, YAML::Node node, std::string path)
    : m_doc(doc)
    , m_node(std::move(node))
    , m_path(std::move(path)) {
}

const std::string& ConfigNode::document_name() const {
    return m_doc->name();
}

std::string ConfigNode::location() const {
    if (const std::string* origin = m_doc->origin_of(m_path)) {
        return *origin;
    }
    return m_doc->location(m_node.Mark());
}

std::string ConfigNode::child_path(std::string_view key) const {
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

bool ConfigNode::has(std::string_view key) const {
    return m_node.IsMap() && m_node[std::string(key)].IsDefined();
}

std::optional<ConfigNode> ConfigNode::lookup(std::string_view key, bool required) const {
    if (!m_node.IsDefined()) {
        return std::nullopt;  // parent already reported
    }
    const std::string k(key);
    if (!m_node.IsMap()) {
        if (!m_node.IsNull() || required) {
            error(fmt::format("expected a map with key '{}'", k));
        }
        return std::nullopt;
    }
    m_doc->m_asked[m_path].insert(k);
    YAML::Node n = m_node[k];
    if (!n.IsDefined()) {
        if (required) {
            error(fmt::format("missing required key '{}'", k));
        }
        return std::nullopt;
    }
    const std::string path = child_path(k);
    m_doc->m_read.insert(path);
    return ConfigNode(m_doc, n, path);
}

ConfigNode ConfigNode::child(std::string_view key) const {
    auto n = lookup(key, true);
    if (n && !n->m_node.IsMap()) {
        n->error("expected a map");
    }
    return n ? *n : ConfigNode(m_doc, YAML::Node(YAML::NodeType::Undefined), child_path(key));
}

std::optional<ConfigNode> ConfigNode::optional_child(std::string_view key) const {
    auto n = lookup(key, false);
    if (n && !n->m_node.IsMap()) {
        n->error("expected a map");
        return std::nullopt;
    }
    return n;
}

std::vector<ConfigNode> ConfigNode::items(std::string_view key) const {
    auto n = lookup(key, true);
    std::vector<ConfigNode> out;
    if (!n) {
        return out;
    }
    if (!n->m_node.IsSequence()) {
        n->error("expected a list");
        return out;
    }
    for (size_t i = 0; i < n->m_node.size(); ++i) {
        out.emplace_back(m_doc, n->m_node[i], fmt::format("{}[{}]", n->m_path, i));
    }
    return out;
}

std::vector<ConfigNode> ConfigNode::elements() const {
    std::vector<ConfigNode> out;
    if (m_node.IsSequence()) {
        for (size_t i = 0; i < m_node.size(); ++i) {
            out.emplace_back(m_doc, m_node[i], fmt::format("{}[{}]", m_path, i));
        }
    }
    return out;
}

std::vector<std::string> ConfigNode::keys() const {
    std::vector<std::string> out;
    if (m_node.IsMap()) {
        for (const auto& kv : m_node) {
            if (!kv.first.IsScalar()) {  // a complex key (`? [a, b]: x`): no name to read it by
                m_doc->m_problems.push_back(fmt::format(
                    "{}: {}: expected plain keys, found a {} as a key",
                    m_doc->location(kv.first.Mark()), m_path.empty() ? "(top level)" : m_path,
                    kv.first.IsMap()        ? "map"
                    : kv.first.IsSequence() ? "list"
                                            : "null"));
                continue;
            }
            out.push_back(kv.first.Scalar());
        }
    }
    return out;
}

std::vector<ConfigNode> ConfigNode::optional_items(std::string_view key) const {
    return has(key) ? items(key) : std::vector<ConfigNode>{};
}

std::optional<std::string> ConfigNode::scalar(std::string_view expected) const {
    if (!m_node.IsDefined()) {
        return std::nullopt;
    }
    if (!m_node.IsScalar()) {
        error(fmt::format("expected {}, got a {}", expected,
                          m_node.IsMap()        ? "map"
                          : m_node.IsSequence() ? "list"
                                                : "null"));
        return std::nullopt;
    }
    return m_node.Scalar();
}

std::optional<uint64_t> ConfigNode::bytes(std::string_view key, bool required) const {
    auto n = lookup(key, required);
    auto text = n ? n->scalar("a size") : std::nullopt;
    if (!text) {
        return std::nullopt;
    }
    std::string why;
    auto v = parse_size(*text, why);
    if (!v) {
        n->error(why + ", got '" + *text + "'");
    }
    return v;
}

uint64_t ConfigNode::get_bytes(std::string_view key) const {
    return bytes(key, true).value_or(0);
}

uint64_t ConfigNode::get_bytes(std::string_view key, uint64_t fallback) const {
    return bytes(key, false).value_or(fallback);
}

uint64_t ConfigNode::get_bytes_in(std::string_view key, uint64_t lo, uint64_t hi) const {
    auto v = bytes(key, true);
    if (v && (*v < lo || *v > hi)) {
        error_at(key, fmt::format("expected a size in [{}, {}] bytes, got {}", lo, hi, *v));
        return 0;
    }
    return v.value_or(0);
}

uint64_t ConfigNode::get_hz(std::string_view key, uint64_t fallback) const {
    auto n = lookup(key, false);
    auto text = n ? n->scalar("a frequency") : std::nullopt;
    if (!text) {
        return fallback;
    }
    std::string why;
    auto v = parse_frequency(*text, why);
    if (!v) {
        n->error(why + ", got '" + *text + "'");
        return fallback;
    }
    return *v;
}

void ConfigNode::error(std::string_view message) const {
    m_doc->m_problems.push_back(
        fmt::format("{}: {}: {}", location(), m_path.empty() ? "(top level)" : m_path, message));
}

void ConfigNode::error_at(std::string_view key, std::string_view message) const {
    if (m_node.IsMap() && m_node[std::string(key)].IsDefined()) {
        ConfigNode(m_doc, m_node[std::string(key)], child_path(key)).error(message);
    } else {
        m_doc->m_problems.push_back(
            fmt::format("{}: {}: {}", location(), child_path(key), message));
    }
}

// ---------------------------------------------------------------- ConfigDocument

ConfigDocument::ConfigDocument(YAML::Node root, std::string name)
    : m_root(std::move(root))
    , m_name(std::move(name)) {
}

namespace {

// The nodes under `node` with aliases expanded, counted once per distinct collection (an alias
// is the anchored node itself: same text position), up to `limit` (limit + 1: more). An alias
// inside the collection it names (`c: &c [*c]`, which yaml-cpp accepts) is a cycle: endless.
size_t expanded(const YAML::Node& node, std::map<int, size_t>& memo, size_t limit) {
    if (!node.IsMap() && !node.IsSequence()) {
        return 1;
    }
    const int pos = node.Mark().is_null() ? -1 : node.Mark().pos;
    if (pos >= 0) {
        const auto [it, first] = memo.emplace(pos, limit + 1);  // limit + 1 while in progress
        if (!first) {
            return it->second;
        }
    }
    size_t n = 1;
    for (auto it = node.begin(); it != node.end() && n <= limit; ++it) {
        n += node.IsMap() ? expanded(it->first, memo, limit) + expanded(it->second, memo, limit)
                          : expanded(*it, memo, limit);
    }
    n = std::min(n, limit + 1);
    if (pos >= 0) {
        memo[pos] = n;
    }
    return n;
}

}  // namespace

size_t ConfigDocument::expanded_nodes(const YAML::Node& node, size_t limit) {
    std::map<int, size_t> memo;
    return expanded(node, memo, limit);
}

ConfigDocument ConfigDocument::parse(const std::string& text, const std::string& name) {
    if (text.size() > kMaxConfigBytes) {
        throw Error(fmt::format("{}: {} bytes: a configuration holds at most {} MiB", name,
                                text.size(), kMaxConfigBytes >> 20));
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw Error(fmt::format("{}:{}:{}: YAML syntax error: {}", name, e.mark.line + 1,
                                e.mark.column + 1, e.msg));
    }
    if (expanded_nodes(root, kMaxConfigNodes) > kMaxConfigNodes) {
        throw Error(
            fmt::format("{}: over {} nodes with its aliases expanded (aliases of aliases, "
                        "or an alias inside its own anchor): refused",
                        name, kMaxConfigNodes));
    }
    return ConfigDocument(root, name);
}

ConfigDocument ConfigDocument::load_file(const std::string& path) {
    check_input_file(path, std::numeric_limits<uint64_t>::max());  // a FIFO: refused, not waited on
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(fmt::format("{}: cannot open configuration file", path));
    }
    std::error_code ec;
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxConfigBytes) {
        throw Error(fmt::format("{}: {} bytes: a configuration file holds at most {} MiB", path,
                                size, kMaxConfigBytes >> 20));
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

ConfigNode ConfigDocument::root() {
    return ConfigNode(this, m_root, "");
}

std::string ConfigDocument::location(const YAML::Mark& mark) const {
    if (mark.is_null()) {
        return m_name;
    }
    return fmt::format("{}:{}:{}", m_name, mark.line + 1, mark.column + 1);
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}
}  // namespace

std::string ConfigDocument::key_location(const YAML::Node& key, const std::string& path) const {
    const std::string* origin = origin_of(path);
    return origin ? *origin : location(key.Mark());
}

void ConfigDocument::check_unread(const YAML::Node& node, const std::string& path) {
    // A collection reached again through an alias was checked the first time (each alias would
    // otherwise check it again: exponential in nested aliases).
    // (Not inside a --set value: its positions are in its own text, not the file's.)
    if ((node.IsSequence() || node.IsMap()) && !node.Mark().is_null() &&
        origin_of(path) == nullptr && !m_checked.insert(node.Mark().pos).second) {
        return;
    }
    if (node.IsSequence()) {
        for (size_t i = 0; i < node.size(); ++i) {
            check_unread(node[i], fmt::format("{}[{}]", path, i));
        }
        return;
    }
    if (!node.IsMap()) {
        return;
    }
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string key = it->first.Scalar();
        const std::string child = path.empty() ? key : path + "." + key;
        if (!seen.insert(key).second) {
            m_problems.push_back(
                fmt::format("{}: {}: duplicate key", key_location(it->first, child), child));
            continue;
        }
        if (m_read.count(child) == 0) {
            std::string hint;
            size_t best = 3;  // suggest only close matches
            for (const std::string& asked : m_asked[path]) {
                const size_t d = edit_distance(key, asked);
                if (d < best && node[asked].IsDefined() == false) {
                    best = d;
                    hint = fmt::format(" (did you mean '{}'?)", asked);
                }
            }
            m_problems.push_back(
                fmt::format("{}: {}: unknown key{}", key_location(it->first, child), child, hint));
            continue;
        }
        check_unread(it->second, child);
    }
}

void ConfigDocument::finish() {
    m_checked.clear();
    check_unread(m_root, "");
    if (m_problems.empty()) {
        return;
    }
    std::string msg = fmt::format("{}: {} configuration problem{}:", m_name, m_problems.size(),
                                  m_problems.size() == 1 ? "" : "s");
    for (const std::string& p : m_problems) {
        msg += "\n  " + p;
    }
    throw Error(msg);
}

}  // namespace npu::sim
