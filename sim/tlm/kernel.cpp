#include "sim/tlm/kernel.h"

#include <cstdio>
#include <vector>

#include <systemc>

#include "sim/tlm/sim_time.h"

namespace npu::sim {

void reset_simulation() {
    // Never freed: see the header. A heap vector stays reachable, so leak checkers stay quiet.
    static auto* retired = new std::vector<sc_core::sc_simcontext*>;
    retired->push_back(sc_core::sc_curr_simcontext);
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

namespace {
WarningSink g_sink;
bool g_verbose = false;
uint64_t g_warnings = 0;

std::string report_text(const sc_core::sc_report& r) {
    return std::string(r.get_msg_type()) + ": " + r.get_msg();
}

void handler(const sc_core::sc_report& r, const sc_core::sc_actions& /*actions*/) {
    switch (r.get_severity()) {
    case sc_core::SC_INFO:
        if (g_verbose) {
            std::fprintf(stderr, "npusim: info: %s\n", report_text(r).c_str());
        }
        return;
    case sc_core::SC_WARNING:
        ++g_warnings;
        if (g_sink) {
            g_sink(r.get_msg());
        } else {
            std::fprintf(stderr, "npusim: warning: %s\n", r.get_msg());
        }
        return;
    default:
        // Throw the report itself, as SystemC's default handler does: inside a process the kernel
        // forwards only sc_report (anything else terminates), and sc_start() rethrows it to the
        // caller, where main() prints its message on one line.
        throw sc_core::sc_report(r);
    }
}
}  // namespace

void install_report_handler(WarningSink sink, bool verbose) {
    g_sink = std::move(sink);
    g_verbose = verbose;
    sc_core::sc_report_handler::set_handler(handler);
}

uint64_t warning_count() {
    return g_warnings;
}

Session::Session(const SessionOptions& o)
    : m_trace(o.trace) {
    if (o.fresh) {
        reset_simulation();
    }
    if (o.report_handler) {
        install_report_handler({}, o.verbose);
    }
}

uint64_t Session::run() {
    sc_core::sc_start();
    return to_ps(sc_core::sc_time_stamp());
}

}  // namespace npu::sim
