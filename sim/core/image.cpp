#include "sim/core/image.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::sim {

Tensor read_image(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
        throw Error(fmt::format("{}: image file too large", path));
    }
    int w = 0, h = 0, c = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> px(
        stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c, 3),
        stbi_image_free);
    if (!px) {
        throw Error(
            fmt::format("{}: cannot decode image: {} (expected BMP, PNG, JPEG, GIF, TGA, PPM/PGM)",
                        path, stbi_failure_reason()));
    }
    Tensor t(DType::u8, {1, 3, h, w});
    uint8_t* out = t.bytes();
    const size_t plane = static_cast<size_t>(w) * static_cast<size_t>(h);
    for (size_t i = 0; i < plane; ++i) {
        for (size_t ch = 0; ch < 3; ++ch) {
            out[ch * plane + i] = px.get()[3 * i + ch];
        }
    }
    return t;
}

Tensor resize_bilinear(const Tensor& in, int64_t height, int64_t width) {
    NPU_ASSERT(in.dtype() == DType::u8 && in.rank() == 4, "resize expects u8 NCHW");
    const int64_t c = in.dim(1), ih = in.dim(2), iw = in.dim(3);
    Tensor out(DType::u8, {1, c, height, width});
    const double sy = static_cast<double>(ih) / static_cast<double>(height);
    const double sx = static_cast<double>(iw) / static_cast<double>(width);
    for (int64_t ch = 0; ch < c; ++ch) {
        const uint8_t* src = in.data<uint8_t>() + ch * ih * iw;
        uint8_t* dst = out.data<uint8_t>() + ch * height * width;
        for (int64_t y = 0; y < height; ++y) {
            const double fy = std::clamp((static_cast<double>(y) + 0.5) * sy - 0.5, 0.0,
                                         static_cast<double>(ih - 1));
            const int64_t y0 = static_cast<int64_t>(fy), y1 = std::min(y0 + 1, ih - 1);
            const double ty = fy - static_cast<double>(y0);
            for (int64_t x = 0; x < width; ++x) {
                const double fx = std::clamp((static_cast<double>(x) + 0.5) * sx - 0.5, 0.0,
                                             static_cast<double>(iw - 1));
                const int64_t x0 = static_cast<int64_t>(fx), x1 = std::min(x0 + 1, iw - 1);
                const double tx = fx - static_cast<double>(x0);
                const double v =
                    (1 - ty) * ((1 - tx) * src[y0 * iw + x0] + tx * src[y0 * iw + x1]) +
                    ty * ((1 - tx) * src[y1 * iw + x0] + tx * src[y1 * iw + x1]);
                dst[y * width + x] = static_cast<uint8_t>(std::lround(v));
            }
        }
    }
    return out;
}

namespace {
void append(void* ctx, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(ctx);
    const auto* p = static_cast<const uint8_t*>(data);
    out->insert(out->end(), p, p + size);
}
}  // namespace

std::vector<uint8_t> encode_png(const uint8_t* nchw, int channels, int height, int width) {
    NPU_ASSERT(channels == 1 || channels == 3, "PNG of {} channels", channels);
    const size_t plane = static_cast<size_t>(width) * static_cast<size_t>(height);
    std::vector<uint8_t> hwc(plane * static_cast<size_t>(channels));
    for (size_t i = 0; i < plane; ++i) {
        for (size_t c = 0; c < static_cast<size_t>(channels); ++c) {
            hwc[i * static_cast<size_t>(channels) + c] = nchw[c * plane + i];
        }
    }
    std::vector<uint8_t> png;
    if (stbi_write_png_to_func(append, &png, width, height, channels, hwc.data(),
                               width * channels) == 0) {
        throw Error("PNG encoding failed");
    }
    return png;
}

std::vector<uint8_t> to_gray8(const float* plane, size_t n, float lo, float hi) {
    std::vector<uint8_t> out(n);
    const float span = hi > lo ? hi - lo : 1.0f;
    for (size_t i = 0; i < n; ++i) {
        out[i] = static_cast<uint8_t>(
            std::lround(std::clamp((plane[i] - lo) / span, 0.0f, 1.0f) * 255.0f));
    }
    return out;
}

Tensor test_scene(int height, int width) {
    Tensor t(DType::u8, {1, 3, height, width});
    uint8_t* p = t.bytes();
    const size_t plane = static_cast<size_t>(height * width);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const double fy = static_cast<double>(y) / height, fx = static_cast<double>(x) / width;
            double rgb[3] = {90 + 120 * fy, 140 + 90 * fy, 230 - 20 * fy};  // sky: blue to pale
            const double dx = fx - 0.28, dy = fy - 0.4;
            if (dx * dx + dy * dy < 0.04) {  // red disk
                rgb[0] = 220, rgb[1] = 40, rgb[2] = 30;
            }
            if (fx > 0.55 && fx < 0.85 && fy > 0.5 && fy < 0.85) {  // green box
                rgb[0] = 40, rgb[1] = 170, rgb[2] = 60;
            }
            if (fx > 0.6 && fx < 0.9 && fy > 0.1 && fy < 0.35) {  // checkerboard
                const bool on = ((x / 6) + (y / 6)) % 2 == 0;
                rgb[0] = rgb[1] = rgb[2] = on ? 245 : 20;
            }
            if (std::abs((fx - 0.05) - (fy - 0.55)) < 0.02 && fy > 0.55) {  // dark diagonal bar
                rgb[0] = rgb[1] = rgb[2] = 30;
            }
            for (size_t c = 0; c < 3; ++c) {
                p[c * plane + static_cast<size_t>(y * width + x)] =
                    static_cast<uint8_t>(std::lround(rgb[c]));
            }
        }
    }
    return t;
}

}  // namespace npu::sim
