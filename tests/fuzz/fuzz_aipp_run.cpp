// libFuzzer target: an AIPP job's whole path (fuzz_aipp_run.h). Seeds: configs/aipp.yaml and the
// jobs of tests/platforms/ascend/test_aipp_mutations.cpp.
#include "tests/fuzz/fuzz_aipp_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::aipp_run(data, size);
    return 0;
}
