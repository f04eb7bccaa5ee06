// The shipped Ascend platform config (configs/ascend.yaml), for the platform's tests.
#pragma once

#include "platforms/ascend/ascend_config.h"
#include "sim/core/config.h"

namespace npu::test {

inline ascend::AscendConfig shipped_ascend_config() {
    sim::ConfigDocument doc =
        sim::ConfigDocument::load_file(NPUSIM_SOURCE_DIR "/configs/ascend.yaml");
    ascend::AscendConfig c = ascend::read_ascend_config(doc.root().child("platform"));
    doc.finish();
    return c;
}

}  // namespace npu::test
