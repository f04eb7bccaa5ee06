// libFuzzer target: the whole K210 run path (fuzz_k210_run.h). Seeds: fuzz_kmodel_seeds DIR
// and ../shared/k210.
#include "tests/fuzz/fuzz_k210_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::k210_run(data, size);
    return 0;
}
