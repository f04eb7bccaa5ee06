#include "models/dlp/dlp_exec.h"

#include <cstring>

#include <boost/endian/conversion.hpp>

#include "models/dlp/dlp_func.h"
#include "sim/core/error.h"

namespace npu::dlp {

namespace {

ConvFormat conv_format(const DlpConfig& cfg) {
    return {cfg.threads_c(), cfg.transfer_n(), cfg.x_is_height};
}

std::vector<float> floats(const uint8_t* b, size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t bits = boost::endian::load_little_u32(b + 4 * i);
        std::memcpy(&v[i], &bits, 4);
    }
    return v;
}

std::vector<int32_t> int32s(const uint8_t* b, size_t n) {
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = static_cast<int32_t>(boost::endian::load_little_u32(b + 4 * i));
    }
    return v;
}

// Output values (CHW, or the fc vector) -> the output image.
template <typename T>
std::vector<uint8_t> output_image(const Record& r, const std::vector<T>& v, const DlpConfig& cfg) {
    if (r.layer.kind == LayerKind::fc) {
        return ddr_bytes(to_ddr_fc(v.data(), v.size(), cfg.fc_thread_number));
    }
    return ddr_bytes(to_ddr_conv(v.data(), r.layer.out, conv_format(cfg)));
}

}  // namespace

std::vector<uint8_t> format_activation(const std::vector<float>& chw, const ActShape& s,
                                       const DlpConfig& cfg) {
    return ddr_bytes(to_ddr_conv(chw.data(), s, conv_format(cfg)));
}

std::vector<uint8_t> format_activation(const std::vector<int8_t>& chw, const ActShape& s,
                                       const DlpConfig& cfg) {
    return ddr_bytes(to_ddr_conv(chw.data(), s, conv_format(cfg)));
}

std::vector<float> read_activation_single(const uint8_t* bytes, const ActShape& s,
                                          const DlpConfig& cfg, bool fc_format) {
    const size_t n = static_cast<size_t>(s.z * s.h * s.w);
    if (fc_format) {
        return floats(bytes, n);
    }
    const std::vector<float> ddr = floats(bytes, conv_ddr_elements(s, conv_format(cfg)));
    return from_ddr_conv(ddr.data(), ddr.size(), s, conv_format(cfg));
}

std::vector<int8_t> read_activation_int8(const uint8_t* bytes, const ActShape& s,
                                         const DlpConfig& cfg, bool fc_format) {
    const size_t n = static_cast<size_t>(s.z * s.h * s.w);
    if (fc_format) {
        return std::vector<int8_t>(reinterpret_cast<const int8_t*>(bytes),
                                   reinterpret_cast<const int8_t*>(bytes) + n);
    }
    const size_t m = conv_ddr_elements(s, conv_format(cfg));
    const std::vector<int8_t> ddr(reinterpret_cast<const int8_t*>(bytes),
                                  reinterpret_cast<const int8_t*>(bytes) + m);
    return from_ddr_conv(ddr.data(), ddr.size(), s, conv_format(cfg));
}

std::vector<uint8_t> execute_layer(const Record& r, const DlpConfig& cfg, const LayerData& d) {
    const Layer& l = r.layer;
    if (l.kind == LayerKind::concat) {
        return {};  // its inputs wrote its image
    }
    const size_t nw = weight_count(l), nb = bias_count(l);
    if (cfg.data_type == DataType::single) {
        const std::vector<float> in =
            read_activation_single(d.input, r.input, cfg, r.input_fc_format);
        switch (l.kind) {
        case LayerKind::conv: {
            const std::vector<float> w = floats(d.weights, nw), b = floats(d.bias, nb);
            return output_image(r, conv_single(l.conv, in.data(), w.data(), b.data()), cfg);
        }
        case LayerKind::fc: {
            const std::vector<float> w = floats(d.weights, nw), b = floats(d.bias, nb);
            return output_image(r, fc_single(l.fc, in.data(), w.data(), b.data()), cfg);
        }
        case LayerKind::pool: return output_image(r, pool_single(l.conv, in.data()), cfg);
        default: {
            const std::vector<float> in2 =
                read_activation_single(d.input2, r.input, cfg, r.input_fc_format);
            const Activation act = l.conv.activation;
            return output_image(
                r,
                adder_single(l.kind == LayerKind::add ? AdderOp::add : AdderOp::multiply, in.data(),
                             in2.data(), in.size(), act),
                cfg);
        }
        }
    }
    const std::vector<int8_t> in = read_activation_int8(d.input, r.input, cfg, r.input_fc_format);
    switch (l.kind) {
    case LayerKind::conv: {
        const std::vector<int32_t> b = int32s(d.bias, nb);
        return output_image(r,
                            conv_int8(l.conv, l.quant, in.data(),
                                      reinterpret_cast<const int8_t*>(d.weights), b.data()),
                            cfg);
    }
    case LayerKind::fc: {
        const std::vector<int32_t> b = int32s(d.bias, nb);
        return output_image(
            r,
            fc_int8(l.fc, l.quant, in.data(), reinterpret_cast<const int8_t*>(d.weights), b.data()),
            cfg);
    }
    case LayerKind::pool: return output_image(r, pool_int8(l.conv, l.quant, in.data()), cfg);
    default: {
        const std::vector<int8_t> in2 =
            read_activation_int8(d.input2, r.input, cfg, r.input_fc_format);
        return output_image(r,
                            adder_int8(l.kind == LayerKind::add ? AdderOp::add : AdderOp::multiply,
                                       in.data(), l.quant.in_exp, in2.data(), l.quant.in2_exp,
                                       l.quant.out_exp, in.size(), l.conv.activation),
                            cfg);
    }
    }
}

}  // namespace npu::dlp
