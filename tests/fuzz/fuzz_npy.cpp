// libFuzzer target for the .npy reader: cmake --preset fuzz && build/fuzz/tests/fuzz_npy
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::npy(data, size);
    return 0;
}
