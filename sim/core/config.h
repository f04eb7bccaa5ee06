// Typed configuration over yaml-cpp. A ConfigNode reads typed values by key, records which keys
// were read, and collects every problem (missing key, wrong type, out of range, unknown key) with
// file:line:column and the key path, so that ConfigDocument::finish() reports them all at once.
// Numbers accept hex/binary (0x40800000, 0b101) and '_' separators; sizes accept KiB/MiB/GiB;
// frequencies accept Hz/kHz/MHz/GHz. Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace npu::sim {

// Parsers for the value syntax, usable on their own (command-line options use them too).
// Each returns std::nullopt and sets `why` to what was expected when the text does not parse.
std::optional<uint64_t> parse_u64(std::string_view text, std::string& why);
std::optional<int64_t> parse_i64(std::string_view text, std::string& why);
std::optional<double> parse_f64(std::string_view text, std::string& why);
std::optional<uint64_t> parse_size(std::string_view text, std::string& why);       // bytes
std::optional<uint64_t> parse_frequency(std::string_view text, std::string& why);  // Hz
// A duration with its unit (ps, ns, us, ms or s), e.g. "2s", "500 ms": picoseconds.
std::optional<uint64_t> parse_duration(std::string_view text, std::string& why);

class ConfigDocument;

class ConfigNode {
public:
    ConfigNode(ConfigDocument* doc, YAML::Node node, std::string path);

    const std::string& path() const { return m_path; }
    // "file:line:column" of this node (of its parent map, for a key that is missing).
    std::string location() const;
    // The file (or stand-in name) of the document this node belongs to.
    const std::string& document_name() const;
    bool valid() const { return m_node.IsDefined() && !m_node.IsNull(); }
    bool is_map() const { return m_node.IsMap(); }
    bool is_sequence() const { return m_node.IsSequence(); }

    // True when this map has `key`; does not count as reading it.
    bool has(std::string_view key) const;
    // The map under `key`; a missing key is an error, recorded (reading goes on: the returned
    // node is invalid and every read from it quietly yields defaults).
    ConfigNode child(std::string_view key) const;
    std::optional<ConfigNode> optional_child(std::string_view key) const;
    // The node under `key` whatever its type (scalar, list or map), if present.
    std::optional<ConfigNode> optional_node(std::string_view key) const {
        return lookup(key, false);
    }
    // The items of this node when it is a list (empty otherwise).
    std::vector<ConfigNode> elements() const;
    // The keys of this node when it is a map, in file order (empty otherwise). Free-form maps
    // (option name -> value) read their entries with these.
    std::vector<std::string> keys() const;
    // The items of the sequence under `key` (empty and an error if it is not a sequence).
    std::vector<ConfigNode> items(std::string_view key) const;
    std::vector<ConfigNode> optional_items(std::string_view key) const;

    // Typed reads of a key. T is bool, an integer type, double or std::string. Integers are
    // range-checked against T. The two-argument form makes the key optional.
    template <typename T>
    T get(std::string_view key) const;
    template <typename T>
    T get(std::string_view key, T fallback) const;
    // As get(key, fallback), and the value must lie in [lo, hi].
    template <typename T>
    T get(std::string_view key, T fallback, T lo, T hi) const;
    // Sizes in bytes with optional suffix B/KiB/MiB/GiB/TiB.
    uint64_t get_bytes(std::string_view key) const;
    uint64_t get_bytes(std::string_view key, uint64_t fallback) const;
    // A required size that must lie in [lo, hi].
    uint64_t get_bytes_in(std::string_view key, uint64_t lo, uint64_t hi) const;
    // Frequencies in Hz with optional suffix Hz/kHz/MHz/GHz.
    uint64_t get_hz(std::string_view key, uint64_t fallback) const;
    // One of a fixed set of words, e.g. get_enum("type", {{"single", kSingle}, {"int8", kInt8}}).
    template <typename E>
    E get_enum(std::string_view key, E fallback,
               const std::vector<std::pair<std::string, E>>& words) const;

    // This node's own scalar as T (for sequence items).
    template <typename T>
    T as() const;

    // Records a problem located at this node: "file:line:col: path: message".
    void error(std::string_view message) const;
    // Records a problem located at `key` of this map (or at the map if the key is absent).
    void error_at(std::string_view key, std::string_view message) const;

private:
    std::optional<ConfigNode> lookup(std::string_view key, bool required) const;
    std::string child_path(std::string_view key) const;
    // Parses this scalar node; on failure records "expected <what>, got '<text>'".
    std::optional<std::string> scalar(std::string_view expected) const;
    std::optional<uint64_t> bytes(std::string_view key, bool required) const;

    ConfigDocument* m_doc;
    YAML::Node m_node;
    std::string m_path;
};

// Bounds on what a configuration may be (a file is someone's text): its bytes, and its nodes
// counted with every alias expanded (a "billion laughs" of nested aliases is a few lines).
constexpr size_t kMaxConfigBytes = 16u << 20;
constexpr size_t kMaxConfigNodes = 1'000'000;

// A parsed YAML file plus the bookkeeping of what has been read and what went wrong.
class ConfigDocument {
public:
    // Throws sim::Error "file:line:col: YAML syntax error: ..." or "cannot read file", and for a
    // file over kMaxConfigBytes or over kMaxConfigNodes nodes with its aliases expanded.
    static ConfigDocument load_file(const std::string& path);
    // `name` stands in for the file name in messages (e.g. "<built-in selfcheck.yaml>").
    static ConfigDocument parse(const std::string& text, const std::string& name);

    ConfigDocument(const ConfigDocument&) = delete;
    ConfigDocument& operator=(const ConfigDocument&) = delete;
    ConfigDocument(ConfigDocument&&) = default;
    ConfigDocument& operator=(ConfigDocument&&) = default;

    ConfigNode root();
    const std::string& name() const { return m_name; }

    // Replaces or adds the value at `path` (keys joined by '.', list items as [i], as in messages:
    // "platform.kpu.clock_hz", "platform.memories[0].size_bytes") by `value` read as YAML (a
    // scalar, [a, b] or {k: v}). Missing maps on the way are made. Problems later found in that
    // value are reported at `origin` (e.g. "--set kpu.clock_hz=200MHz") instead of a line of the
    // file. Throws sim::Error "origin: ..." when the path cannot be followed or the value is not
    // YAML.
    void set(std::string_view path, std::string_view value, const std::string& origin);

    // Adds an "unknown key" problem for every key that nothing read (with a suggestion when a read
    // key is close), and "duplicate key" problems; then throws one sim::Error listing all problems,
    // if there are any.
    void finish();
    const std::vector<std::string>& problems() const { return m_problems; }

private:
    friend class ConfigNode;
    ConfigDocument(YAML::Node root, std::string name);
    void check_unread(const YAML::Node& node, const std::string& path);
    // The nodes of `node` with aliases expanded, up to limit (limit + 1: more, or a cycle).
    static size_t expanded_nodes(const YAML::Node& node, size_t limit);
    std::string location(const YAML::Mark& mark) const;
    // The origin of the override that `path` lies in, if any.
    const std::string* origin_of(const std::string& path) const;
    std::string key_location(const YAML::Node& key, const std::string& path) const;

    YAML::Node m_root;
    std::string m_name;
    std::vector<std::string> m_problems;
    std::set<std::string> m_read;                          // paths of keys that were read
    std::map<std::string, std::set<std::string>> m_asked;  // map path -> keys asked for
    std::map<std::string, std::string> m_overrides;        // path set() replaced -> its origin
    std::set<int> m_checked;  // collections check_unread has been through, by text position
};

// ---- template implementations ----

namespace config_detail {
template <typename T>
std::optional<T> convert(const std::string& text, std::string& expected);
}  // namespace config_detail

template <typename T>
T ConfigNode::as() const {
    std::string expected;
    auto text = scalar("a value");
    if (!text) {
        return T{};
    }
    auto v = config_detail::convert<T>(*text, expected);
    if (!v) {
        error(expected);
        return T{};
    }
    return *v;
}

template <typename T>
T ConfigNode::get(std::string_view key) const {
    auto node = lookup(key, true);
    return node ? node->as<T>() : T{};
}

template <typename T>
T ConfigNode::get(std::string_view key, T fallback) const {
    auto node = lookup(key, false);
    return node ? node->as<T>() : fallback;
}

template <typename T>
T ConfigNode::get(std::string_view key, T fallback, T lo, T hi) const {
    auto node = lookup(key, false);
    if (!node) {
        return fallback;
    }
    T v = node->as<T>();
    if (v < lo || v > hi) {
        node->error(fmt::format("expected a value in [{}, {}], got {}", lo, hi, v));
        return fallback;
    }
    return v;
}

template <typename E>
E ConfigNode::get_enum(std::string_view key, E fallback,
                       const std::vector<std::pair<std::string, E>>& words) const {
    auto node = lookup(key, false);
    if (!node) {
        return fallback;
    }
    auto text = node->scalar("a word");
    if (!text) {
        return fallback;
    }
    std::string list;
    for (const auto& [word, value] : words) {
        if (word == *text) {
            return value;
        }
        list += (list.empty() ? "" : ", ") + word;
    }
    node->error("expected one of " + list + ", got '" + *text + "'");
    return fallback;
}

}  // namespace npu::sim
