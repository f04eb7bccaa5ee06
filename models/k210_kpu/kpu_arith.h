// 64-bit two's-complement arithmetic of the KPU datapath that wraps instead of being undefined.
// Only values already far beyond the 36-bit range (counted as overflows) can wrap; the C++
// emulators wrap the same way on every host they run on.
#pragma once

#include <cstdint>

namespace npu::kpu {

inline int64_t wrap_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
constexpr int64_t kMax36 = (int64_t{1} << 35) - 1;  // KPU_BN_OUT_BITS = 36, signed
constexpr int64_t kMin36 = -(int64_t{1} << 35);

}  // namespace npu::kpu
