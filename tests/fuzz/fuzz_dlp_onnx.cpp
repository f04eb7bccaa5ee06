// libFuzzer target: ONNX bytes -> a DL processor network, single and int8 (fuzz_dlp_onnx.h).
// Seeds: any ONNX model of the ops it reads (the compact CNN DlpOnnx writes, our test models).
#include "tests/fuzz/fuzz_dlp_onnx.h"

#include "configs/embedded.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"

namespace {

npu::dlp::DlpPlatformConfig builtin(const char* name) {
    auto doc = npu::sim::ConfigDocument::parse(npu::configs::embedded_text(name), name);
    npu::dlp::DlpPlatformConfig c = npu::dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const npu::dlp::DlpPlatformConfig single = builtin("dlp_zcu102_single.yaml");
    static const npu::dlp::DlpPlatformConfig int8 = builtin("dlp_zcu102_int8.yaml");
    npu::fuzz::dlp_onnx_run(data, size, single, int8);
    return 0;
}
