// A DL processor platform read from configs/ (dlp_zcu102_single.yaml, ...), for the DL processor's
// tests.
#pragma once

#include <string>

#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"

namespace npu::test {

inline dlp::DlpPlatformConfig platform(const std::string& file) {
    auto doc = sim::ConfigDocument::load_file(std::string(NPUSIM_SOURCE_DIR "/configs/") + file);
    dlp::DlpPlatformConfig c = dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

}  // namespace npu::test
