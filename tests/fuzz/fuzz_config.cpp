// libFuzzer target for the YAML configuration reader.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::config(data, size);
    return 0;
}
