// libFuzzer target for the kmodel v3/v4 readers: any bytes give a model or one sim::Error.
// Seeds: the bundled demo kmodel (written by fuzz_kmodel -seed_corpus) and ../shared/k210.
#include "platforms/k210/kmodel.h"
#include "sim/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const npu::k210::Kmodel m =
            npu::k210::parse_kmodel(std::vector<uint8_t>(data, data + size), "fuzz");
        // Whatever parses must be safe to look at: every conv's tables lie inside the file.
        for (const npu::k210::KpuConvLayer& c : m.convs) {
            if (c.weights_offset + c.weights_bytes > m.bytes.size()) {
                __builtin_trap();
            }
        }
    } catch (const npu::sim::Error&) {
    }
    return 0;
}
