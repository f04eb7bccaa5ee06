// libFuzzer target for the ONNX importer and reference evaluator (tests/fuzz/fuzz_onnx_target.h).
// Seeds: the official node tests' models (/usr/share/libonnx-testdata/data/node/*/model.onnx).
#include "tests/fuzz/fuzz_onnx_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::onnx_model(data, size);
    return 0;
}
