// libFuzzer target: ONNX bytes -> the K210 compiler -> a functional run (fuzz_onnx_compile.h).
// Seeds: our ONNX models (platforms/k210/digits, tests/platforms/k210/compiler/data).
#include "tests/fuzz/fuzz_onnx_compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::onnx_compile_run(data, size);
    return 0;
}
