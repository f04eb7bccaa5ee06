#include "sim/core/trace.h"

#include <algorithm>

namespace npu::sim {

int TraceWriter::track(const std::string& name) {
    for (size_t i = 0; i < m_tracks.size(); ++i) {
        if (m_tracks[i] == name) {
            return static_cast<int>(i + 1);
        }
    }
    m_tracks.push_back(name);
    return static_cast<int>(m_tracks.size());
}

void TraceWriter::complete(int track, const std::string& name, const std::string& category,
                           uint64_t start_ps, uint64_t dur_ps, nlohmann::ordered_json args) {
    if (!m_enabled) {
        return;
    }
    m_events.push_back({track, name, category, start_ps, dur_ps, std::move(args), false});
}

void TraceWriter::counter(const std::string& name, uint64_t ts_ps, double value) {
    if (!m_enabled) {
        return;
    }
    m_events.push_back({0, name, "counter", ts_ps, 0, {{"value", value}}, true});
}

namespace {
// Trace timestamps are microseconds; keep picosecond precision as a decimal fraction.
double ps_to_us(uint64_t ps) {
    return static_cast<double>(ps) / 1e6;
}
}  // namespace

nlohmann::ordered_json TraceWriter::to_json() const {
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", 0},
                      {"args", {{"name", "npusim"}}}});
    for (size_t i = 0; i < m_tracks.size(); ++i) {
        const int tid = static_cast<int>(i + 1);
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", 1},
                          {"tid", tid},
                          {"args", {{"name", m_tracks[i]}}}});
        events.push_back({{"name", "thread_sort_index"},
                          {"ph", "M"},
                          {"pid", 1},
                          {"tid", tid},
                          {"args", {{"sort_index", tid}}}});
    }
    std::vector<const Event*> order;
    order.reserve(m_events.size());
    for (const Event& e : m_events) {
        order.push_back(&e);
    }
    std::stable_sort(order.begin(), order.end(), [](const Event* a, const Event* b) {
        return a->start_ps != b->start_ps ? a->start_ps < b->start_ps : a->track < b->track;
    });
    for (const Event* e : order) {
        if (e->counter) {
            events.push_back({{"name", e->name},
                              {"ph", "C"},
                              {"ts", ps_to_us(e->start_ps)},
                              {"pid", 1},
                              {"args", e->args}});
            continue;
        }
        nlohmann::ordered_json j = {{"name", e->name},
                                    {"cat", e->category},
                                    {"ph", "X"},
                                    {"ts", ps_to_us(e->start_ps)},
                                    {"dur", ps_to_us(e->dur_ps)},
                                    {"pid", 1},
                                    {"tid", e->track}};
        if (!e->args.is_null()) {
            j["args"] = e->args;
        }
        events.push_back(std::move(j));
    }
    return {{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
}

}  // namespace npu::sim
