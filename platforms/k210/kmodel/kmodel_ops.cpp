#include "platforms/k210/kmodel/kmodel_ops.h"

#include "platforms/k210/kmodel/runtime_detail.h"

namespace npu::k210 {

namespace {

constexpr OpRuns kNo = OpRuns::not_supported, kKpu = OpRuns::kpu, kCpu = OpRuns::cpu;

// Kendryte SDK lib/drivers/include/kpu.h (kpu_model_layer_type_t) and nncase v0.2.0-beta4
// src/runtime/runtime_op.def / k210 ops (opcode values). The v3 types left unsupported are the
// ones kpu.c's ai_step does not run either ("Layer is not supported").
const std::vector<KmodelOp>& table() {
    static const std::vector<KmodelOp> ops = {
        {3, 0, "INVALID", kNo, nullptr},
        {3, 1, "ADD", kCpu, detail::v3_add},
        {3, 2, "QUANTIZED_ADD", kCpu, detail::v3_quantized_add},
        {3, 3, "GLOBAL_MAX_POOL2D", kNo, nullptr},
        {3, 4, "QUANTIZED_GLOBAL_MAX_POOL2D", kNo, nullptr},
        {3, 5, "GLOBAL_AVERAGE_POOL2D", kCpu, detail::v3_global_average_pool},
        {3, 6, "QUANTIZED_GLOBAL_AVERAGE_POOL2D", kNo, nullptr},
        {3, 7, "MAX_POOL2D", kNo, nullptr},
        {3, 8, "QUANTIZED_MAX_POOL2D", kCpu, detail::v3_quantized_max_pool},
        {3, 9, "AVERAGE_POOL2D", kCpu, detail::v3_average_pool},
        {3, 10, "QUANTIZED_AVERAGE_POOL2D", kNo, nullptr},
        {3, 11, "QUANTIZE", kCpu, detail::v3_quantize},
        {3, 12, "DEQUANTIZE", kCpu, detail::v3_dequantize},
        {3, 13, "REQUANTIZE", kCpu, detail::v3_requantize},
        {3, 14, "L2_NORMALIZATION", kCpu, detail::v3_l2_normalization},
        {3, 15, "SOFTMAX", kCpu, detail::v3_softmax},
        {3, 16, "CONCAT", kCpu, detail::v3_concat},
        {3, 17, "QUANTIZED_CONCAT", kCpu, detail::v3_concat},
        {3, 18, "FULLY_CONNECTED", kCpu, detail::v3_fully_connected},
        {3, 19, "QUANTIZED_FULLY_CONNECTED", kNo, nullptr},
        {3, 20, "TENSORFLOW_FLATTEN", kCpu, detail::v3_flatten},
        {3, 21, "QUANTIZED_TENSORFLOW_FLATTEN", kNo, nullptr},
        {3, 22, "RESIZE_NEAREST_NEIGHBOR", kCpu, detail::v3_resize},
        {3, 23, "QUANTIZED_RESIZE_NEAREST_NEIGHBOR", kCpu, detail::v3_quantized_resize},
        {3, 24, "CHANNELWISE_DEQUANTIZE", kCpu, detail::v3_channelwise_dequantize},
        {3, 25, "LOGISTIC", kCpu, detail::v3_logistic},
        {3, 10240, "K210_CONV", kKpu, nullptr},
        {3, 10241, "K210_ADD_PADDING", kCpu, detail::v3_add_padding},
        {3, 10242, "K210_REMOVE_PADDING", kCpu, detail::v3_remove_padding},
        {3, 10243, "K210_UPLOAD", kCpu, detail::v3_upload},
        {4, 0x00, "binary", kCpu, detail::v4_binary},
        {4, 0x01, "concat", kCpu, detail::v4_concat},
        {4, 0x02, "conv2d", kCpu, detail::v4_conv2d},
        {4, 0x03, "dequantize", kCpu, detail::v4_dequantize},
        {4, 0x04, "matmul", kCpu, detail::v4_matmul},
        {4, 0x05, "pad", kCpu, detail::v4_pad},
        {4, 0x06, "quantize", kCpu, detail::v4_quantize},
        {4, 0x07, "reduce", kCpu, detail::v4_reduce},
        {4, 0x08, "reduce_window2d", kCpu, detail::v4_reduce_window2d},
        {4, 0x09, "memory_copy", kCpu, detail::v4_memory_copy},
        {4, 0x0A, "resize_image", kCpu, detail::v4_resize_image},
        {4, 0x0B, "softmax", kCpu, detail::v4_softmax},
        {4, 0x0C, "transpose", kCpu, detail::v4_transpose},
        {4, 0x0D, "strided_slice", kCpu, detail::v4_strided_slice},
        {4, 0x0E, "unary", kCpu, detail::v4_unary},
        {4, 0x0F, "quantized_conv2d", kCpu, detail::v4_quantized_conv2d},
        {4, 0x10, "quantized_matmul", kCpu, detail::v4_quantized_matmul},
        {4, 0x11, "quantized_binary", kCpu, detail::v4_quantized_binary},
        {4, 0x12, "table_lookup1d", kCpu, detail::v4_table_lookup1d},
        {4, 0x13, "conv2d_transpose", kCpu, detail::v4_conv2d_transpose},
        {4, 0x14, "nnil_unary_method", kCpu, detail::v4_nnil_unary_method},
        {4, 0x1001, "cpu_conv2d", kCpu, detail::v4_cpu_conv2d},  // the `cpu` target, NHWC
        {4, 0x1002, "cpu_depthwise_conv2d", kCpu, detail::v4_cpu_depthwise_conv2d},
        {4, 0x1003, "cpu_reduce_window2d", kCpu, detail::v4_cpu_reduce_window2d},
        {4, 0x1004, "cpu_quantized_conv2d", kCpu, detail::v4_cpu_quantized_conv2d},
        {4, 0x1005, "cpu_quantized_depthwise_conv2d", kCpu,
         detail::v4_cpu_quantized_depthwise_conv2d},
        {4, 0x2001, "kpu_upload", kCpu, detail::v4_upload},
        {4, 0x2002, "kpu_conv2d", kKpu, nullptr},
    };
    return ops;
}

}  // namespace

const std::vector<KmodelOp>& kmodel_ops() {
    return table();
}

const KmodelOp* find_op(int version, uint32_t code) {
    for (const KmodelOp& op : table()) {
        if (op.version == version && op.code == code) {
            return &op;
        }
    }
    return nullptr;
}

std::string supported_op_names(int version) {
    std::string s;
    for (const KmodelOp& op : table()) {
        if (op.version == version && op.runs != OpRuns::not_supported) {
            s += (s.empty() ? "" : ", ") + std::string(op.name);
        }
    }
    return s;
}

}  // namespace npu::k210
