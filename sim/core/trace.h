// Chrome trace-event JSON (opens in Perfetto / chrome://tracing): one track per engine, a complete
// event ("ph":"X") per layer, burst or command. Times are integer picoseconds in, microseconds out.
// Tracing is switched on at run time; a disabled writer drops events for the cost of one branch.
// Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/json_text.h"

namespace npu::sim {

class TraceWriter {
public:
    explicit TraceWriter(bool enabled = true)
        : m_enabled(enabled) {}

    bool enabled() const { return m_enabled; }
    // Returns the track id for `name`, creating it (with a thread_name metadata event) once.
    int track(const std::string& name);
    // A complete event on `track` from start_ps lasting dur_ps; args are shown in the UI.
    void complete(int track, const std::string& name, const std::string& category,
                  uint64_t start_ps, uint64_t dur_ps, nlohmann::ordered_json args = {});
    // A counter sample ("ph":"C"): the series `name` has `value` from `ts_ps` on (e.g. a FIFO's
    // occupancy); Perfetto draws each series as its own counter track.
    void counter(const std::string& name, uint64_t ts_ps, double value);
    size_t event_count() const { return m_events.size(); }

    // {"displayTimeUnit": "ns", "traceEvents": [metadata..., events sorted by (ts, track)]}.
    nlohmann::ordered_json to_json() const;
    std::string dump() const { return json_text(to_json(), 1); }

private:
    struct Event {
        int track;
        std::string name;
        std::string category;
        uint64_t start_ps;
        uint64_t dur_ps;
        nlohmann::ordered_json args;
        bool counter = false;
    };
    bool m_enabled;
    std::vector<std::string> m_tracks;
    std::vector<Event> m_events;
};

}  // namespace npu::sim
