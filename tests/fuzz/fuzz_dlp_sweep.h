// The DL processor's sweep file as a fuzz entry point: any bytes are read as a sweep file over
// zcu102_single (at most 64 configurations) and, when read, every configuration is costed for a
// network. Any input gives a result or one sim::Error, never a crash, hang or other exception.
// Used by libFuzzer (fuzz_dlp_sweep.cpp); the normal suite's seeded share is
// DlpSweep.MutatedSweepFilesReadOrFailCleanly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "platforms/dlp/dlp_sweep.h"
#include "sim/core/error.h"

namespace npu::fuzz {

// Returns 0 refused, 1 read, 2 costed.
inline int dlp_sweep_run(const uint8_t* data, size_t size, const dlp::DlpPlatformConfig& cfg,
                         const dlp::Network& n) {
    dlp::DlpSweep s;
    try {
        s = dlp::parse_dlp_sweep(std::string(reinterpret_cast<const char*>(data), size),
                                 "fuzz.yaml", cfg.dlp, 64);
    } catch (const sim::Error&) {
        return 0;
    }
    try {
        dlp::sweep(n, cfg, s, "fuzz.yaml");
    } catch (const sim::Error&) {
        return 1;
    }
    return 2;
}

}  // namespace npu::fuzz
