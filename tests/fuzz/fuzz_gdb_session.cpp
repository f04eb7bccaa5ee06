// libFuzzer target for packet sequences against a running hart (breakpoints, steps, runs, memory
// and registers): cmake --preset fuzz && build/fuzz/tests/fuzz_gdb_session
#include "tests/fuzz/fuzz_gdb_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::gdb_session(data, size);
    return 0;
}
