// Helpers around the SystemC kernel: a fresh simulation context (so one process can elaborate and
// run several simulations: the test suites, sweeps), npusim's report handler, and Session: one
// simulation's ritual in one place.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/core/trace.h"

namespace npu::sim {

// Replaces the current SystemC simulation context with a new one. SystemC 2.3 cannot delete a
// context safely (library-global events refer to it at exit), so old contexts are kept, reachable,
// for the life of the process. Modules of the old context must be destroyed before this call.
void reset_simulation();

// Installs npusim's report handler: SC_INFO is dropped unless verbose; SC_WARNING goes to `sink`
// (by default one line "npusim: warning: <message>" on stderr) and is counted; SC_ERROR and
// SC_FATAL are thrown as the sc_report (printing nothing): sc_start() rethrows them, and callers
// catch sc_core::sc_report and use get_msg().
using WarningSink = std::function<void(const std::string& message)>;
void install_report_handler(WarningSink sink = {}, bool verbose = false);
uint64_t warning_count();

// How a Session starts: the run's trace (nullptr: a disabled one); SystemC info messages; a fresh
// simulation context first (a process that simulates more than once: calibration, FINN's FIFO
// sizing); npusim's report handler installed (false: the one in place stays, e.g. a test's).
struct SessionOptions {
    TraceWriter* trace = nullptr;
    bool verbose = false;
    bool fresh = false;
    bool report_handler = true;
};

// One simulation's SystemC ritual, the only place that starts the kernel: the report handler, the
// run's trace (the caller's, or a disabled one), sc_start, the time at the end. Construct it
// before the run's modules.
class Session {
public:
    explicit Session(const SessionOptions& o = {});
    TraceWriter& trace() { return m_trace != nullptr ? *m_trace : m_no_trace; }
    // Runs until no event is left or something calls sc_stop(); the simulated time then, in ps.
    // An SC_ERROR raised inside comes back as the sc_report sc_start rethrows.
    uint64_t run();

private:
    TraceWriter* m_trace;
    TraceWriter m_no_trace{false};
};

}  // namespace npu::sim
