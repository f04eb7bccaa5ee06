#include "tests/models/kl730/kl730_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace npu::test {

using kl730::Layout;

namespace {
bool is_hl(Layout l) {
    return l == Layout::L4W4C8BHL || l == Layout::L1W16C8BHL || l == Layout::L16W1C8BHL ||
           l == Layout::L1W16C8BHL_CH_COMPACT;
}
}  // namespace

std::vector<uint8_t> kl730_reference_to_npu(const kl730::TensorInfo& t,
                                            const std::vector<float>& onnx) {
    const size_t rank = t.shape.size();
    size_t total = 1;
    for (int64_t d : t.shape) {
        total *= static_cast<size_t>(d);
    }
    std::vector<uint8_t> npu(kl730::npu_bytes(t), 0);
    // The channel-group stride, as the C pseudo-code finds it (subtracting 16 once).
    uint32_t channel_idx = 0, group_stride = 0;
    const bool outer = t.layout == Layout::L1W16C8B || t.layout == Layout::L1W16C8BHL;
    if (outer) {
        for (size_t a = 0; a < rank; ++a) {
            if (t.stride_npu[a] == 1) {
                channel_idx = static_cast<uint32_t>(a);
                continue;
            }
            group_stride =
                std::max(group_stride, static_cast<uint32_t>(t.stride_npu[a] * t.shape[a]));
        }
        group_stride -= 16;
    }
    for (size_t flat = 0; flat < total; ++flat) {
        std::vector<int64_t> idx(rank);
        size_t rest = flat;
        for (size_t a = rank; a-- > 0;) {
            idx[a] = static_cast<int64_t>(rest % static_cast<size_t>(t.shape[a]));
            rest /= static_cast<size_t>(t.shape[a]);
        }
        int64_t onnx_index = 0, npu_index = 0;
        for (size_t a = 0; a < rank; ++a) {
            onnx_index += idx[a] * t.stride_onnx[a];
            npu_index += idx[a] * t.stride_npu[a];
        }
        if (outer) {
            npu_index += (idx[channel_idx] >> 4) * group_stride;
        }
        const kl730::QuantParam& qp =
            t.quant.size() > 1
                ? t.quant[static_cast<size_t>(idx[static_cast<size_t>(t.quantized_axis)])]
                : t.quant[0];
        // ExampleHelper: x · 2^radix · scale, np.round (half to even), clip.
        const float v = onnx[static_cast<size_t>(onnx_index)] *
                        std::pow(2.0f, static_cast<float>(qp.radix)) * qp.scale;
        const double r = std::nearbyint(static_cast<double>(v));
        if (is_hl(t.layout)) {
            const auto q = static_cast<int16_t>(std::clamp(r, -32768.0, 32767.0));
            npu_index = ((npu_index >> 4) << 5) + (npu_index & 15);
            const auto u = static_cast<uint16_t>(static_cast<uint16_t>(q) >> 1);
            npu[static_cast<size_t>(npu_index)] = static_cast<uint8_t>(u & 0x007f);
            npu[static_cast<size_t>(npu_index) + 16] = static_cast<uint8_t>((u >> 7) & 0x00ff);
        } else if (t.layout == Layout::L8W1C16B || t.layout == Layout::RAW_16B) {
            const auto q = static_cast<int16_t>(std::clamp(r, -32768.0, 32767.0));
            const auto u = static_cast<uint16_t>(static_cast<uint16_t>(q) & 0xfffe);
            std::memcpy(&npu[2 * static_cast<size_t>(npu_index)], &u, 2);
        } else if (t.layout == Layout::HW1C16B_LE || t.layout == Layout::HW1C16B_BE) {
            const auto u =
                static_cast<uint16_t>(static_cast<int16_t>(std::clamp(r, -32768.0, 32767.0)));
            const size_t b = 2 * static_cast<size_t>(npu_index);
            const bool be = t.layout == Layout::HW1C16B_BE;
            npu[b] = static_cast<uint8_t>(be ? u >> 8 : u & 0xff);
            npu[b + 1] = static_cast<uint8_t>(be ? u & 0xff : u >> 8);
        } else if (t.layout == Layout::RAW_FLOAT) {
            std::memcpy(&npu[4 * static_cast<size_t>(npu_index)], &v, 4);
        } else {
            npu[static_cast<size_t>(npu_index)] =
                static_cast<uint8_t>(static_cast<int8_t>(std::clamp(r, -128.0, 127.0)));
        }
    }
    return npu;
}

}  // namespace npu::test
