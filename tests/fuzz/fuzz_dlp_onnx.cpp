// libFuzzer target: ONNX bytes -> a DL processor network, single and int8 (fuzz_dlp_onnx.h).
// Seeds: any ONNX model of the ops it reads (the compact CNN DlpOnnx writes, our test models).
#include "tests/fuzz/fuzz_dlp_onnx.h"

#include "tests/fuzz/dlp_builtin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using npu::fuzz::builtin_dlp_platform;
    static const npu::dlp::DlpPlatformConfig single =
        builtin_dlp_platform("dlp_zcu102_single.yaml");
    static const npu::dlp::DlpPlatformConfig int8 = builtin_dlp_platform("dlp_zcu102_int8.yaml");
    npu::fuzz::dlp_onnx_run(data, size, single, int8);
    return 0;
}
