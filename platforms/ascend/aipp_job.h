// An AIPP job from YAML (configs/aipp_*.yaml): SetAippFunctions' format and AippParams<U>, and
// LoadImageToLocal's parameters, under the Ascend C API's own names, plus the ambiguity
// switches and the timing. Keys: docs/aipp.md. Problems are recorded in the document (call
// finish()); values of type U are range-checked for the output type.
#pragma once

#include <cstdint>

#include "models/aipp/aipp_cost.h"
#include "models/aipp/aipp_params.h"
#include "sim/core/config.h"

namespace npu::ascend {

struct AippJob {
    aipp::Params params;
    aipp::LoadParams load;
    bool src_horiz_size_given = false;  // else the input's width
    aipp::Fidelity fidelity;
    aipp::AippTiming timing;
    uint32_t raw_width = 0, raw_height = 0;  // source size of raw .yuv inputs (`source:`)
};

// Reads the `aipp:` map.
AippJob read_aipp_job(const sim::ConfigNode& aipp);

}  // namespace npu::ascend
