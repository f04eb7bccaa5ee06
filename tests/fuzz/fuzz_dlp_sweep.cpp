// libFuzzer target: a DL processor sweep file over the compact CNN (fuzz_dlp_sweep.h). Seeds:
// configs/dlp_sweep.yaml.
#include "tests/fuzz/fuzz_dlp_sweep.h"

#include "tests/fuzz/dlp_builtin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const npu::dlp::DlpPlatformConfig cfg =
        npu::fuzz::builtin_dlp_platform("dlp_zcu102_single.yaml");
    static const npu::dlp::Network net =
        npu::dlp::load_network(NPUSIM_SOURCE_DIR "/configs/networks/dlhdl_compact_cnn.yaml", cfg)
            .network;
    npu::fuzz::dlp_sweep_run(data, size, cfg, net);
    return 0;
}
