#include "platforms/ascend/aipp_source.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::ascend {

namespace {

using aipp::InputFormat;

uint8_t clamp_u8(int32_t v) {
    return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// BT.601 full range (JPEG), Q8 with rounding.
uint8_t luma(int32_t r, int32_t g, int32_t b) {
    return clamp_u8((77 * r + 150 * g + 29 * b + 128) >> 8);
}
uint8_t chroma_u(int32_t r, int32_t g, int32_t b) {
    return clamp_u8(((-43 * r - 85 * g + 128 * b + 128) >> 8) + 128);
}
uint8_t chroma_v(int32_t r, int32_t g, int32_t b) {
    return clamp_u8(((128 * r - 107 * g - 21 * b + 128) >> 8) + 128);
}

size_t bytes_of(InputFormat f, uint32_t w, uint32_t h) {
    const size_t n = size_t{w} * h;
    switch (f) {
    case InputFormat::YUV420SP_U8: return n * 3 / 2;
    case InputFormat::XRGB8888_U8: return n * 4;
    case InputFormat::RGB888_U8: return n * 3;
    case InputFormat::YUV400_U8: return n;
    }
    return n;
}

SourceImage split(std::vector<uint8_t> bytes, InputFormat f, uint32_t w, uint32_t h) {
    SourceImage s;
    s.width = w, s.height = h;
    if (f == InputFormat::YUV420SP_U8) {
        const size_t y = size_t{w} * h;
        s.src1.assign(bytes.begin() + static_cast<std::ptrdiff_t>(y), bytes.end());
        bytes.resize(y);
    }
    s.src0 = std::move(bytes);
    return s;
}

// NV12 of an RGB image (odd sizes drop the last row/column): BT.601 full-range Y, and the U, V
// of each 2x2 block's mean colour.
template <typename Px>
void to_nv12(const Px& px, uint32_t w, uint32_t h, SourceImage& s) {
    const uint32_t we = w / 2 * 2, he = h / 2 * 2;  // NV12 needs even sizes
    s.width = we, s.height = he;
    for (uint32_t y = 0; y < he; ++y) {
        for (uint32_t i = 0; i < we; ++i) {
            s.src0.push_back(luma(px(i, y, 0), px(i, y, 1), px(i, y, 2)));
        }
    }
    for (uint32_t y = 0; y < he; y += 2) {
        for (uint32_t i = 0; i < we; i += 2) {
            int32_t m[3] = {};
            for (size_t c = 0; c < 3; ++c) {
                m[c] =
                    (px(i, y, c) + px(i + 1, y, c) + px(i, y + 1, c) + px(i + 1, y + 1, c) + 2) / 4;
            }
            s.src1.push_back(chroma_u(m[0], m[1], m[2]));
            s.src1.push_back(chroma_v(m[0], m[1], m[2]));
        }
    }
    s.conversion = fmt::format(
        "NV12 {}x{}, BT.601 full range: Y = (77R + 150G + 29B + 128) >> 8, U, V of each 2x2 "
        "block's mean colour",
        we, he);
}

}  // namespace

SourceImage from_rgb(const sim::Tensor& rgb, InputFormat f) {
    const auto h = static_cast<uint32_t>(rgb.dim(2)), w = static_cast<uint32_t>(rgb.dim(3));
    const uint8_t* p = rgb.bytes();
    const size_t plane = size_t{w} * h;
    auto px = [&](uint32_t x, uint32_t y, size_t c) {
        return int32_t{p[c * plane + y * w + x]};
    };
    SourceImage s;
    s.width = w, s.height = h;
    switch (f) {
    case InputFormat::RGB888_U8:
    case InputFormat::XRGB8888_U8: {
        const bool x = f == InputFormat::XRGB8888_U8;
        for (uint32_t y = 0; y < h; ++y) {
            for (uint32_t i = 0; i < w; ++i) {
                if (x) {
                    s.src0.push_back(0);
                }
                for (size_t c = 0; c < 3; ++c) {
                    s.src0.push_back(static_cast<uint8_t>(px(i, y, c)));
                }
            }
        }
        s.conversion = x ? "interleaved as X, R, G, B with X = 0" : "interleaved as R, G, B";
        break;
    }
    case InputFormat::YUV400_U8:
        for (uint32_t y = 0; y < h; ++y) {
            for (uint32_t i = 0; i < w; ++i) {
                s.src0.push_back(luma(px(i, y, 0), px(i, y, 1), px(i, y, 2)));
            }
        }
        s.conversion = "BT.601 luma (77R + 150G + 29B + 128) >> 8";
        break;
    case InputFormat::YUV420SP_U8: to_nv12(px, w, h, s); break;
    }
    return s;
}

SourceImage from_array(const sim::Tensor& a, InputFormat f, const std::string& name) {
    const sim::Shape& s = a.shape();
    bool ok = a.dtype() == sim::DType::u8;
    uint32_t w = 0, h = 0;
    const char* want = "";
    switch (f) {
    case InputFormat::RGB888_U8:
    case InputFormat::XRGB8888_U8: {
        const int64_t c = f == InputFormat::RGB888_U8 ? 3 : 4;
        want = c == 3 ? "uint8 (H, W, 3)" : "uint8 (H, W, 4)";
        ok = ok && s.size() == 3 && s[2] == c;
        break;
    }
    case InputFormat::YUV400_U8:
        want = "uint8 (H, W)";
        ok = ok && s.size() == 2;
        break;
    case InputFormat::YUV420SP_U8:
        want = "uint8 (H * 3 / 2, W): the Y plane, then the UV plane";
        ok = ok && s.size() == 2 && s[0] % 3 == 0 && s[1] % 2 == 0;
        break;
    }
    if (!ok || s[0] < 1 || s[1] < 1 || s[0] > 8192 || s[1] > 8192) {
        throw sim::Error(fmt::format("{}: array is {} of {}, {} expects {}", name,
                                     sim::shape_str(s), sim::dtype_name(a.dtype()),
                                     aipp::format_name(f), want));
    }
    w = static_cast<uint32_t>(s[1]);
    h = static_cast<uint32_t>(f == InputFormat::YUV420SP_U8 ? s[0] * 2 / 3 : s[0]);
    SourceImage out = split(std::vector<uint8_t>(a.bytes(), a.bytes() + a.size_bytes()), f, w, h);
    out.conversion = "none (.npy used as is)";
    return out;
}

SourceImage from_raw(const std::vector<uint8_t>& bytes, InputFormat f, uint32_t width,
                     uint32_t height, const std::string& name) {
    if (width == 0 || height == 0) {
        throw sim::Error(name +
                         ": a raw input needs its size: source: {width, height} in the "
                         "AIPP config");
    }
    const size_t want = bytes_of(f, width, height);
    if (bytes.size() != want) {
        throw sim::Error(fmt::format("{}: {} bytes, a {}x{} {} image has {}", name, bytes.size(),
                                     width, height, aipp::format_name(f), want));
    }
    SourceImage out = split(bytes, f, width, height);
    out.conversion = "none (raw bytes used as is)";
    return out;
}

}  // namespace npu::ascend
