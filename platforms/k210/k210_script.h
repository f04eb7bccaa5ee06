// `npusim run --script FILE` on the K210: a register script (soc/trace_player.h) played through
// the CPU's port of the timed SoC, the bring-up engineer's first tool before firmware exists.
#pragma once

#include <string>

#include "platforms/common/platform_face.h"
#include "platforms/k210/soc/k210_config.h"

namespace npu::k210 {

// Runs the script; the report has each KPU layer the script started (cycles, MACs), the failed
// checks (exit 1), the simulated time and dump_mem's files. A wait that never ends (the
// simulation runs out of events) is a failure naming its line.
platform::RunReport run_script(const K210Config& cfg, const std::string& source,
                               const platform::RunRequest& request);

}  // namespace npu::k210
