// libFuzzer target: the DL processor's whole path (fuzz_dlp_run.h) on both built-in platform
// configs (single and int8). Seeds: configs/networks/*.yaml and the networks of
// tests/platforms/dlp/test_dlp_mutations.cpp.
#include "tests/fuzz/fuzz_dlp_run.h"

#include "configs/embedded.h"

namespace {

npu::dlp::DlpPlatformConfig platform(const char* name) {
    auto doc = npu::sim::ConfigDocument::parse(npu::configs::embedded_text(name), name);
    npu::dlp::DlpPlatformConfig c = npu::dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const npu::dlp::DlpPlatformConfig single = platform("dlp_zcu102_single.yaml"),
                                             int8 = platform("dlp_zcu102_int8.yaml");
    npu::fuzz::dlp_run(data, size, single);
    npu::fuzz::dlp_run(data, size, int8);
    return 0;
}
