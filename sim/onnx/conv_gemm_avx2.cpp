// conv2d's blocked product for AVX2 (compiled with -mavx2 -ffp-contract=off; called only on hosts
// that have AVX2).
#include "sim/onnx/conv_gemm.h"

namespace npu::onnx::gemm_detail {
namespace {
using V = float __attribute__((vector_size(32)));
}  // namespace

void gemm_avx2(const GemmArgs& a) {
    gemm_body<V, 8>(a);
}

void direct_avx2(const DirectArgs& a) {
    direct_body(a);
}

}  // namespace npu::onnx::gemm_detail
