// libFuzzer target for the image readers (tests/fuzz/fuzz_image.h):
// cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_image &&
// build/fuzz/tests/fuzz_image
#include "tests/fuzz/fuzz_image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::image(data, size);
    return 0;
}
