// libFuzzer target: the DL processor's whole path (fuzz_dlp_run.h) on both built-in platform
// configs (single and int8). Seeds: configs/networks/*.yaml and the networks of
// tests/platforms/dlp/test_dlp_mutations.cpp.
#include "tests/fuzz/fuzz_dlp_run.h"

#include "tests/fuzz/dlp_builtin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using npu::fuzz::builtin_dlp_platform;
    static const npu::dlp::DlpPlatformConfig single =
                                                 builtin_dlp_platform("dlp_zcu102_single.yaml"),
                                             int8 = builtin_dlp_platform("dlp_zcu102_int8.yaml");
    npu::fuzz::dlp_run(data, size, single);
    npu::fuzz::dlp_run(data, size, int8);
    return 0;
}
