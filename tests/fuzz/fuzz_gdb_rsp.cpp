// libFuzzer target for the GDB stub's packet layer: cmake --preset fuzz &&
// build/fuzz/tests/fuzz_gdb_rsp
#include "tests/fuzz/fuzz_gdb_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    npu::fuzz::gdb_packets(data, size);
    return 0;
}
