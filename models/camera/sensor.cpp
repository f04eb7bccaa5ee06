#include "models/camera/sensor.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/image.h"

namespace npu::camera {

namespace {
// BT.601 full range (JFIF) in integers: what the sensors' YUV output is assumed to follow (their
// matrices are programmable; the demos program RGB565).
uint8_t clamp8(int v) {
    return static_cast<uint8_t>(std::clamp(v, 0, 255));
}
uint8_t luma(const uint8_t* p) {
    return clamp8((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
}
int cb(const uint8_t* p) {
    return ((-43 * p[0] - 85 * p[1] + 128 * p[2] + 128) >> 8) + 128;
}
int cr(const uint8_t* p) {
    return ((128 * p[0] - 107 * p[1] - 21 * p[2] + 128) >> 8) + 128;
}
uint16_t rgb565(const uint8_t* p) {
    return static_cast<uint16_t>(((p[0] >> 3) << 11) | ((p[1] >> 2) << 5) | (p[2] >> 3));
}
uint16_t bgr565(const uint8_t* p) {
    return static_cast<uint16_t>(((p[2] >> 3) << 11) | ((p[1] >> 2) << 5) | (p[0] >> 3));
}
}  // namespace

void encode_pair(PixelOrder order, const uint8_t* a, const uint8_t* b, uint8_t* out) {
    if (order == PixelOrder::kRgb565 || order == PixelOrder::kRgb565Low ||
        order == PixelOrder::kBgr565) {
        const uint8_t* px[2] = {a, b};
        for (int i = 0; i < 2; ++i) {
            const uint16_t v = order == PixelOrder::kBgr565 ? bgr565(px[i]) : rgb565(px[i]);
            const auto hi = static_cast<uint8_t>(v >> 8), lo = static_cast<uint8_t>(v);
            out[2 * i] = order == PixelOrder::kRgb565Low ? lo : hi;
            out[2 * i + 1] = order == PixelOrder::kRgb565Low ? hi : lo;
        }
        return;
    }
    // The pair's chroma: the mean of the two pixels' (assumed: the sensors' subsampling filter
    // is not documented).
    const uint8_t y0 = luma(a), y1 = luma(b);
    const uint8_t u = clamp8((cb(a) + cb(b) + 1) / 2), v = clamp8((cr(a) + cr(b) + 1) / 2);
    const uint8_t orders[4][4] = {{y0, u, y1, v}, {u, y0, v, y1}, {y0, v, y1, u}, {v, y0, u, y1}};
    const int k = order == PixelOrder::kYuyv   ? 0
                  : order == PixelOrder::kUyvy ? 1
                  : order == PixelOrder::kYvyu ? 2
                                               : 3;
    std::copy(orders[k], orders[k] + 4, out);
}

void Sensor::sccb_write(const std::vector<uint8_t>& bytes) {
    const size_t n = address_bits() / 8;
    if (bytes.size() < n) {
        return;  // an address phase only: nothing to set
    }
    uint32_t reg = 0;
    for (size_t i = 0; i < n; ++i) {
        reg = (reg << 8) | bytes[i];
    }
    m_address = reg;
    for (size_t i = n; i < bytes.size(); ++i) {
        write(key(reg++), bytes[i]);
    }
}

uint8_t Sensor::read(uint32_t k) const {
    const auto it = m_regs.find(k);
    return it == m_regs.end() ? 0 : it->second;
}

void Sensor::write(uint32_t k, uint8_t value) {
    m_regs[k] = value;
    written(k, value);
}

void Sensor::warn(const std::string& text) const {
    if (std::find(m_warnings.begin(), m_warnings.end(), text) == m_warnings.end()) {
        m_warnings.push_back(text);
    }
}

std::vector<uint8_t> Sensor::render(const sim::Tensor& scene, const Stream& s) const {
    if (!s.unmodelled.empty()) {
        warn(s.unmodelled);
    }
    const int64_t h = scene.shape()[2], w = scene.shape()[3];
    const sim::Tensor img =
        (h == s.height && w == s.width) ? scene : sim::resize_linear(scene, s.height, s.width);
    const uint8_t* p = img.data<uint8_t>();
    const size_t plane = size_t{s.width} * s.height;
    std::vector<uint8_t> out(plane * 2);
    for (unsigned y = 0; y < s.height; ++y) {
        const unsigned sy = s.flip ? s.height - 1 - y : y;
        for (unsigned x = 0; x + 1 < s.width; x += 2) {
            uint8_t px[2][3];
            for (unsigned k = 0; k < 2; ++k) {
                const unsigned sx = s.mirror ? s.width - 1 - (x + k) : x + k;
                for (unsigned c = 0; c < 3; ++c) {
                    px[k][c] = p[c * plane + size_t{sy} * s.width + sx];
                }
            }
            encode_pair(s.order, px[0], px[1], &out[(size_t{y} * s.width + x) * 2]);
        }
    }
    return out;
}

}  // namespace npu::camera
