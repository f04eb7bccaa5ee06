// libFuzzer target for pin scripts (tests/fuzz/fuzz_pin_script.h).
#include "tests/fuzz/fuzz_pin_script.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::pin_script(data, size);
    return 0;
}
