// `npusim run --firmware app.elf [-- args]` on the K210: the ELF on hart 0 of the firmware SoC
// (firmware_soc.h) until it exits by semihosting; the report has its exit code, instructions and
// CPU cycles, sleep, interrupts, device accesses, every KPU layer it ran, and what it printed.
#pragma once

#include <string>

#include "platforms/common/platform_face.h"
#include "platforms/k210/soc/k210_config.h"

namespace npu::k210 {

// A firmware that exits non-zero, faults (bus fault, illegal instruction, a plain ebreak), runs
// past its instruction budget or waits for an interrupt that can never come fails the run
// (passed = false) with one line naming the cause, the pc and its symbol. A file that is not
// RISC-V firmware, or that does not fit the memories, is RunReport::error.
platform::RunReport run_firmware(const K210Config& cfg, const std::string& source,
                                 const platform::RunRequest& request);

}  // namespace npu::k210
