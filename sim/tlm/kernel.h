// Helpers around the SystemC kernel: a fresh simulation context (so one process can elaborate and
// run several simulations: the test suites, sweeps), and npusim's report handler.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

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

}  // namespace npu::sim
