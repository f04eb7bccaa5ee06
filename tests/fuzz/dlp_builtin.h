// A built-in DL processor platform (configs/<name>, embedded in the program) for the DL processor's
// fuzz targets.
#pragma once

#include "configs/embedded.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"

namespace npu::fuzz {

inline dlp::DlpPlatformConfig builtin_dlp_platform(const char* name) {
    auto doc = sim::ConfigDocument::parse(configs::embedded_text(name), name);
    dlp::DlpPlatformConfig c = dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

}  // namespace npu::fuzz
