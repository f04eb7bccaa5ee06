#include "models/k210_soc/pin_script.h"

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::soc {

namespace {

constexpr unsigned kPads = 48;
constexpr size_t kMaxEvents = 1'000'000;

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size() && out.size() < 4) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) {
            ++i;
        }
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
            ++i;
        }
        if (i > start) {
            out.push_back(line.substr(start, i - start));
        }
    }
    return out;
}

std::optional<unsigned> pad_number(std::string_view s) {
    if (s.size() < 3 || s.size() > 4 || s.substr(0, 2) != "io") {
        return std::nullopt;
    }
    unsigned n = 0;
    for (char c : s.substr(2)) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n < kPads ? std::optional<unsigned>(n) : std::nullopt;
}

PinEvent parse_line(const std::vector<std::string_view>& f, const std::string& where) {
    if (f.size() != 3) {
        throw sim::Error(
            fmt::format("{}: expected '<time> io<N> <0|1|z>' (e.g. '5ms io26 0')", where));
    }
    PinEvent e;
    if (f[0] != "0") {
        std::string why;
        const auto ps = sim::parse_duration(f[0], why);
        if (!ps) {
            throw sim::Error(fmt::format("{}: time '{}': {}", where, f[0], why));
        }
        e.at_ps = *ps;
    }
    const auto pad = pad_number(f[1]);
    if (!pad) {
        throw sim::Error(fmt::format("{}: pad '{}': expected io0 .. io{} (the FPIOA's pads)", where,
                                     f[1], kPads - 1));
    }
    e.pad = *pad;
    if (f[2] == "0" || f[2] == "1") {
        e.level = f[2] == "1";
    } else if (f[2] != "z" && f[2] != "Z") {
        throw sim::Error(fmt::format(
            "{}: level '{}': expected 0, 1 or z (released to the pad's pull)", where, f[2]));
    }
    return e;
}

}  // namespace

std::vector<PinEvent> parse_pin_script(std::string_view text, const std::string& source) {
    std::vector<PinEvent> events;
    unsigned number = 0;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        end = end == std::string_view::npos ? text.size() : end;
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        ++number;
        if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        const std::vector<std::string_view> f = fields(line);
        if (f.empty()) {
            continue;
        }
        const std::string where = fmt::format("{}:{}", source, number);
        PinEvent e = parse_line(f, where);
        e.line = number;
        if (!events.empty() && e.at_ps < events.back().at_ps) {
            throw sim::Error(
                fmt::format("{}: time {} ps is before line {}'s {} ps (times may not "
                            "go back)",
                            where, e.at_ps, events.back().line, events.back().at_ps));
        }
        if (events.size() == kMaxEvents) {
            throw sim::Error(fmt::format("{}: more than {} pin events", where, kMaxEvents));
        }
        events.push_back(e);
    }
    return events;
}

}  // namespace npu::soc
