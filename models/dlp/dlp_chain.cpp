#include "models/dlp/dlp_chain.h"

#include "models/dlp/dlp_func.h"

namespace npu::dlp {

namespace {

AdderOp adder_op(const Layer& l) {
    return l.kind == LayerKind::add ? AdderOp::add : AdderOp::multiply;
}

// A depth concatenation of CHW images: the inputs' values one after the other.
template <typename T>
std::vector<T> concat(const Layer& l, const std::vector<std::vector<T>>& v) {
    std::vector<T> out;
    for (int src : l.inputs) {
        const std::vector<T>& a = v[static_cast<size_t>(src)];
        out.insert(out.end(), a.begin(), a.end());
    }
    return out;
}

}  // namespace

std::vector<std::vector<float>> run_chain_single(const Network& n, const std::vector<float>& x) {
    std::vector<std::vector<float>> v;
    for (const Layer& l : n.layers) {
        const std::vector<float>& a = l.input < 0 ? x : v[static_cast<size_t>(l.input)];
        switch (l.kind) {
        case LayerKind::conv:
            v.push_back(conv_single(l.conv, a.data(), l.weights.data(), l.bias.data()));
            break;
        case LayerKind::pool: v.push_back(pool_single(l.conv, a.data())); break;
        case LayerKind::concat: v.push_back(concat(l, v)); break;
        case LayerKind::fc:
            v.push_back(fc_single(l.fc, a.data(), l.weights.data(), l.bias.data()));
            break;
        default: {
            const std::vector<float> c =
                l.input2 == kConstantOperand
                    ? broadcast_constant(l.constant, a.size() / l.constant.size())
                    : (l.input2 < 0 ? x : v[static_cast<size_t>(l.input2)]);
            v.push_back(adder_single(adder_op(l), a.data(), c.data(), a.size(), l.conv.activation));
        }
        }
    }
    return v;
}

std::vector<std::vector<int8_t>> run_chain_int8(const Network& n, const std::vector<int8_t>& x) {
    std::vector<std::vector<int8_t>> v;
    for (const Layer& l : n.layers) {
        const std::vector<int8_t>& a = l.input < 0 ? x : v[static_cast<size_t>(l.input)];
        switch (l.kind) {
        case LayerKind::conv:
            v.push_back(conv_int8(l.conv, l.quant, a.data(), l.weights_q.data(), l.bias_q.data()));
            break;
        case LayerKind::pool: v.push_back(pool_int8(l.conv, l.quant, a.data())); break;
        case LayerKind::concat: v.push_back(concat(l, v)); break;
        case LayerKind::fc:
            v.push_back(fc_int8(l.fc, l.quant, a.data(), l.weights_q.data(), l.bias_q.data()));
            break;
        default: {
            const std::vector<int8_t> c =
                l.input2 == kConstantOperand
                    ? broadcast_constant(l.constant_q, a.size() / l.constant_q.size())
                    : (l.input2 < 0 ? x : v[static_cast<size_t>(l.input2)]);
            v.push_back(adder_int8(adder_op(l), a.data(), l.quant.in_exp, c.data(), l.quant.in2_exp,
                                   l.quant.out_exp, a.size(), l.conv.activation));
        }
        }
    }
    return v;
}

}  // namespace npu::dlp
