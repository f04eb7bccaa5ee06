// libFuzzer target for the FINN-ONNX importer (tests/fuzz/fuzz_finn_target.h).
#include "tests/fuzz/fuzz_finn_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::finn_model(data, size);
    return 0;
}
