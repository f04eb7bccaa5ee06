// libFuzzer target for FINN folding sweep files (tests/fuzz/fuzz_finn_target.h).
#include "tests/fuzz/fuzz_finn_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::finn_sweep(data, size);
    return 0;
}
