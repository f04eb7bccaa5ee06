// conv2d's blocked product for SSE2, the x86-64 baseline every host has.
#include "sim/onnx/conv_gemm.h"

namespace npu::onnx::gemm_detail {
namespace {
using V = float __attribute__((vector_size(16)));
}  // namespace

void gemm_sse2(const GemmArgs& a) {
    gemm_body<V, 4>(a);
}

void direct_sse2(const DirectArgs& a) {
    direct_body(a);
}

}  // namespace npu::onnx::gemm_detail
