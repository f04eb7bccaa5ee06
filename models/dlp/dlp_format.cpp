#include "models/dlp/dlp_format.h"

#include <cstring>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {
void check(const ActShape& s, const ConvFormat& f) {
    if (s.z < 1 || s.h < 1 || s.w < 1 || f.c < 1 || f.n < f.c) {
        throw sim::Error(
            fmt::format("DL processor format: shape {}x{}x{} (Z x H x W) with C = {}, "
                        "N = {}: expected sizes >= 1 and 1 <= C <= N",
                        s.z, s.h, s.w, f.c, f.n));
    }
}
}  // namespace

size_t conv_ddr_elements(const ActShape& s, const ConvFormat& f) {
    check(s, f);
    const auto blocks = static_cast<size_t>((s.z + f.c - 1) / f.c);
    return static_cast<size_t>(s.h * s.w) * blocks * f.n;
}

size_t conv_ddr_index(const ActShape& s, const ConvFormat& f, int64_t z, int64_t h, int64_t w) {
    const int64_t x = f.x_is_height ? h : w, y = f.x_is_height ? w : h;
    const int64_t nx = f.x_is_height ? s.h : s.w;
    return static_cast<size_t>((z / f.c) * (s.h * s.w * f.n) + (y * nx + x) * f.n + z % f.c);
}

template <typename T>
std::vector<T> to_ddr_conv(const T* chw, const ActShape& s, const ConvFormat& f) {
    std::vector<T> ddr(conv_ddr_elements(s, f), T{});
    for (int64_t z = 0; z < s.z; ++z) {
        for (int64_t h = 0; h < s.h; ++h) {
            for (int64_t w = 0; w < s.w; ++w) {
                ddr[conv_ddr_index(s, f, z, h, w)] = chw[(z * s.h + h) * s.w + w];
            }
        }
    }
    return ddr;
}

template <typename T>
std::vector<T> from_ddr_conv(const T* ddr, size_t ddr_elements, const ActShape& s,
                             const ConvFormat& f) {
    if (ddr_elements < conv_ddr_elements(s, f)) {
        throw sim::Error(
            fmt::format("DL processor format: the DDR image holds {} values, a "
                        "{}x{}x{} activation with C = {}, N = {} needs {}",
                        ddr_elements, s.z, s.h, s.w, f.c, f.n, conv_ddr_elements(s, f)));
    }
    std::vector<T> chw(static_cast<size_t>(s.z * s.h * s.w));
    for (int64_t z = 0; z < s.z; ++z) {
        for (int64_t h = 0; h < s.h; ++h) {
            for (int64_t w = 0; w < s.w; ++w) {
                chw[static_cast<size_t>((z * s.h + h) * s.w + w)] =
                    ddr[conv_ddr_index(s, f, z, h, w)];
            }
        }
    }
    return chw;
}

size_t fc_ddr_elements(size_t length, unsigned threads) {
    if (threads == 0) {
        throw sim::Error("DL processor format: FC thread number 0");
    }
    return (length + threads - 1) / threads * threads;
}

template <typename T>
std::vector<T> to_ddr_fc(const T* v, size_t length, unsigned threads) {
    std::vector<T> ddr(fc_ddr_elements(length, threads), T{});
    std::copy(v, v + length, ddr.begin());
    return ddr;
}

template <typename T>
std::vector<T> from_ddr_fc(const T* ddr, size_t ddr_elements, size_t length) {
    if (ddr_elements < length) {
        throw sim::Error(
            fmt::format("DL processor format: the DDR image holds {} values, the FC "
                        "vector has {}",
                        ddr_elements, length));
    }
    return std::vector<T>(ddr, ddr + length);
}

std::vector<uint8_t> ddr_bytes(const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    for (size_t i = 0; i < v.size(); ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v[i], 4);
        boost::endian::store_little_u32(b.data() + 4 * i, bits);
    }
    return b;
}

std::vector<uint8_t> ddr_bytes(const std::vector<int8_t>& v) {
    std::vector<uint8_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size());
    return b;
}

template std::vector<float> to_ddr_conv(const float*, const ActShape&, const ConvFormat&);
template std::vector<int8_t> to_ddr_conv(const int8_t*, const ActShape&, const ConvFormat&);
template std::vector<float> from_ddr_conv(const float*, size_t, const ActShape&, const ConvFormat&);
template std::vector<int8_t> from_ddr_conv(const int8_t*, size_t, const ActShape&,
                                           const ConvFormat&);
template std::vector<float> to_ddr_fc(const float*, size_t, unsigned);
template std::vector<int8_t> to_ddr_fc(const int8_t*, size_t, unsigned);
template std::vector<float> from_ddr_fc(const float*, size_t, size_t);
template std::vector<int8_t> from_ddr_fc(const int8_t*, size_t, size_t);

}  // namespace npu::dlp
