#include "sim/core/image.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <string>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>
#include <opencv2/imgproc.hpp>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/jpeg.h"

namespace npu::sim {

namespace {

constexpr const char* kFormats = "expected BMP, PNG, JPEG, GIF, TGA, PPM/PGM";

uint32_t le16(const std::vector<uint8_t>& b, size_t at) {
    return boost::endian::load_little_u16(b.data() + at);
}
uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
    return boost::endian::load_little_u32(b.data() + at);
}

// A BMP as stb_image reads it (every compression but RLE as plain rows): its rows, 4-byte aligned,
// after bfOffBits.
uint64_t bmp_bytes(const std::vector<uint8_t>& b, uint64_t w, uint64_t h) {
    if (b.size() < 18) {
        return b.size() + 1;
    }
    const bool core = le32(b, 14) == 12;  // OS/2's BITMAPCOREHEADER
    if (b.size() < (core ? 26u : 34u)) {
        return b.size() + 1;  // the header itself is cut short
    }
    const uint64_t bpp = core ? le16(b, 24) : le16(b, 28);
    const uint32_t compression = core ? 0 : le32(b, 30);
    if (compression == 1 || compression == 2) {
        return 0;  // run-length: stb_image refuses it (any other value it reads as plain rows)
    }
    return le32(b, 10) + (w * bpp + 31) / 32 * 4 * h;
}

// A TGA: header, image ID, colour map, then the pixels, plain or in run-length packets (walked).
uint64_t tga_bytes(const std::vector<uint8_t>& b, uint64_t w, uint64_t h) {
    const unsigned type = b[2];
    const uint64_t map = b[1] != 0 ? le16(b, 5) * ((b[7] + 7u) / 8u) : 0;
    const uint64_t px = (b[16] + 7u) / 8u;
    uint64_t at = uint64_t{18} + b[0] + map;
    if (type < 9) {
        return at + w * h * px;
    }
    for (uint64_t n = 0; n < w * h;) {
        if (at >= b.size()) {
            return b.size() + 1;
        }
        const uint8_t packet = b[at++];
        const uint64_t count = (packet & 0x7fu) + 1u;
        at += (packet & 0x80u) != 0 ? px : count * px;
        n += count;
    }
    return at;
}

// A binary PNM (P5 gray, P6 RGB): three numbers after the magic (comments skipped), one white
// space, then the samples, two bytes each above a maximum of 255.
uint64_t pnm_bytes(const std::vector<uint8_t>& b, uint64_t w, uint64_t h) {
    size_t at = 2;
    uint64_t number[3] = {0, 0, 0};
    for (uint64_t& v : number) {
        while (at < b.size() && (std::isspace(b[at]) != 0 || b[at] == '#')) {
            if (b[at] == '#') {
                while (at < b.size() && b[at] != '\n') {
                    ++at;
                }
            } else {
                ++at;
            }
        }
        while (at < b.size() && std::isdigit(b[at]) != 0 && v < (1u << 20)) {
            v = v * 10 + static_cast<uint64_t>(b[at++] - '0');
        }
    }
    const uint64_t channels = b[1] == '6' ? 3 : 1;
    return at + 1 + w * h * channels * (number[2] > 255 ? 2 : 1);
}

// The bytes the header of an uncompressed BMP, a TGA or a binary PNM says the file holds (its
// pixels come last), or 0 for other formats (PNG, GIF: their decoders find their end). stb_image
// reads a byte past the end as 0: a truncated file would decode with black rows.
uint64_t bytes_promised(const std::vector<uint8_t>& b, int w, int h) {
    const auto uw = static_cast<uint64_t>(w), uh = static_cast<uint64_t>(h);
    const auto starts = [&b](const char* magic) {
        const size_t n = std::char_traits<char>::length(magic);
        return b.size() >= n && std::equal(magic, magic + n, b.begin());
    };
    if (starts("BM")) {
        return bmp_bytes(b, uw, uh);
    }
    if (starts("P5") || starts("P6")) {
        return pnm_bytes(b, uw, uh);
    }
    const bool other = starts("\x89PNG") || starts("GIF") || starts("8BPS") || starts("#?") ||
                       starts("\x53\x80\xF6\x34") || b.size() < 3;
    const bool tga =
        !other && (b[2] == 1 || b[2] == 2 || b[2] == 3 || b[2] == 9 || b[2] == 10 || b[2] == 11);
    if (!tga) {
        return 0;
    }
    return b.size() < 18 ? b.size() + 1 : tga_bytes(b, uw, uh);  // its header cut short
}

// The header's size (not a JPEG): a file of a few bytes may claim a gigapixel image, or fewer
// bytes than its header describes.
void check_stb_header(const std::vector<uint8_t>& bytes, const std::string& path) {
    if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
        throw Error(fmt::format("{}: image file too large", path));
    }
    int w = 0, h = 0, c = 0;
    if (stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c) == 0) {
        throw Error(
            fmt::format("{}: cannot decode image: {} ({})", path, stbi_failure_reason(), kFormats));
    }
    if (static_cast<uint64_t>(w) * static_cast<uint64_t>(h) > kMaxImagePixels) {
        throw Error(fmt::format("{}: {}x{} pixels is more than the 2^28 accepted", path, w, h));
    }
    const uint64_t promised = bytes_promised(bytes, w, h);
    if (promised > bytes.size()) {
        throw Error(
            fmt::format("{}: truncated image: its {}x{} header needs {} bytes, the file "
                        "has {}",
                        path, w, h, promised, bytes.size()));
    }
}

}  // namespace

void check_image_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
    if (is_jpeg(bytes)) {
        int w = 0, h = 0;
        jpeg_size(bytes, name, w, h);
        return;
    }
    check_stb_header(bytes, name);
}

void check_image(const std::string& path) {
    check_image_bytes(read_file(path), path);
}

Tensor decode_image(const std::vector<uint8_t>& bytes, const std::string& name) {
    if (is_jpeg(bytes)) {
        return decode_jpeg(bytes, name);
    }
    check_stb_header(bytes, name);
    int w = 0, h = 0, c = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> px(
        stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c, 3),
        stbi_image_free);
    if (!px) {
        throw Error(
            fmt::format("{}: cannot decode image: {} ({})", name, stbi_failure_reason(), kFormats));
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

Tensor read_image(const std::string& path) {
    return decode_image(read_file(path), path);
}

Tensor resize_linear(const Tensor& in, int64_t height, int64_t width) {
    NPU_ASSERT(in.dtype() == DType::u8 && in.rank() == 4 && in.dim(0) == 1 && in.dim(1) <= 4,
               "resize expects u8 (1, C <= 4, H, W)");
    const int c = static_cast<int>(in.dim(1));
    const int ih = static_cast<int>(in.dim(2)), iw = static_cast<int>(in.dim(3));
    const size_t in_plane = static_cast<size_t>(ih) * static_cast<size_t>(iw);
    // Interleaved HWC, as cv2.resize sees a decoded image (its SIMD and scalar paths split the
    // row by position, so the layout is part of the result).
    cv::Mat src(ih, iw, CV_8UC(c));
    for (size_t i = 0; i < in_plane; ++i) {
        for (int ch = 0; ch < c; ++ch) {
            src.data[i * static_cast<size_t>(c) + static_cast<size_t>(ch)] =
                in.data<uint8_t>()[static_cast<size_t>(ch) * in_plane + i];
        }
    }
    cv::Mat dst;
    cv::resize(src, dst, cv::Size(static_cast<int>(width), static_cast<int>(height)), 0, 0,
               cv::INTER_LINEAR);
    Tensor out(DType::u8, {1, c, height, width});
    const size_t out_plane = static_cast<size_t>(height) * static_cast<size_t>(width);
    for (size_t i = 0; i < out_plane; ++i) {
        for (int ch = 0; ch < c; ++ch) {
            out.data<uint8_t>()[static_cast<size_t>(ch) * out_plane + i] =
                dst.data[i * static_cast<size_t>(c) + static_cast<size_t>(ch)];
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
