#include "models/k210_dvp/dvp_pixels.h"

#include <algorithm>

namespace npu::dvp {

namespace {
uint8_t clamp8(int v) {
    return static_cast<uint8_t>(std::clamp(v, 0, 255));
}
// BT.601 full range, 16-bit fixed point.
void yuv_to_rgb(int y, int u, int v, uint8_t* rgb) {
    const int d = u - 128, e = v - 128;
    rgb[0] = clamp8(y + ((91881 * e + 32768) >> 16));
    rgb[1] = clamp8(y - ((22554 * d + 46802 * e + 32768) >> 16));
    rgb[2] = clamp8(y + ((116130 * d + 32768) >> 16));
}
uint16_t pack565(const uint8_t* rgb) {
    return static_cast<uint16_t>(((rgb[0] >> 3) << 11) | ((rgb[1] >> 2) << 5) | (rgb[2] >> 3));
}
// Stream bytes into the display buffer: each group of 4 reversed (a little-endian word holding
// them MSB first).
void store_display(const uint8_t* bytes, unsigned n, uint8_t* display) {
    for (unsigned i = 0; i + 3 < n; i += 4) {
        display[i] = bytes[i + 3];
        display[i + 1] = bytes[i + 2];
        display[i + 2] = bytes[i + 1];
        display[i + 3] = bytes[i];
    }
}
}  // namespace

void widen565(uint16_t v, uint8_t* rgb) {
    const unsigned r = v >> 11, g = (v >> 5) & 0x3f, b = v & 0x1f;
    rgb[0] = static_cast<uint8_t>((r << 3) | (r >> 2));
    rgb[1] = static_cast<uint8_t>((g << 2) | (g >> 4));
    rgb[2] = static_cast<uint8_t>((b << 3) | (b >> 2));
}

void convert_line(Format f, const uint8_t* stream, unsigned width, uint8_t* display, uint8_t* r,
                  uint8_t* g, uint8_t* b) {
    if (f == Format::kY) {
        for (unsigned x = 0; r != nullptr && x < width; ++x) {
            r[x] = stream[2 * x];
        }
        if (display != nullptr) {
            store_display(stream, 2 * width, display);
        }
        return;
    }
    uint8_t line565[4];
    for (unsigned x = 0; x + 1 < width; x += 2) {
        const uint8_t* s = stream + 2 * x;
        uint8_t rgb[2][3];
        if (f == Format::kRgb565) {
            widen565(static_cast<uint16_t>(s[0] << 8 | s[1]), rgb[0]);
            widen565(static_cast<uint16_t>(s[2] << 8 | s[3]), rgb[1]);
            std::copy(s, s + 4, line565);
        } else {
            yuv_to_rgb(s[0], s[1], s[3], rgb[0]);
            yuv_to_rgb(s[2], s[1], s[3], rgb[1]);
            for (int k = 0; k < 2; ++k) {
                const uint16_t v = pack565(rgb[k]);
                line565[2 * k] = static_cast<uint8_t>(v >> 8);
                line565[2 * k + 1] = static_cast<uint8_t>(v);
            }
        }
        if (display != nullptr) {  // pixels x, x + 1: the 4 bytes of one display word
            store_display(line565, 4, display + 2 * x);
        }
        for (unsigned k = 0; k < 2; ++k) {
            if (r != nullptr) {
                r[x + k] = rgb[k][0];
                g[x + k] = rgb[k][1];
                b[x + k] = rgb[k][2];
            }
        }
    }
}

}  // namespace npu::dvp
