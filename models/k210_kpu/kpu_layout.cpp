#include "models/k210_kpu/kpu_layout.h"

#include <cstring>

namespace npu::kpu {

RowLayout row_layout(int width) {
    if (width <= 16) {
        return {4, 1, 16};
    }
    if (width <= 32) {
        return {2, 1, 32};
    }
    return {1, static_cast<uint32_t>((width + 63) / 64), 64};
}

uint64_t fmap_lines(int channels, int width, int height) {
    const RowLayout l = row_layout(width);
    const uint64_t blocks = (static_cast<uint64_t>(channels) + l.groups - 1) / l.groups;
    return uint64_t{l.row_lines} * static_cast<uint64_t>(height) * blocks;
}

FmapGeometry FmapGeometry::natural(int channels, int width, int height) {
    const RowLayout l = row_layout(width);
    return {channels, width,       height,
            l.groups, l.row_lines, l.row_lines * static_cast<uint32_t>(height)};
}

uint64_t FmapGeometry::extent() const {
    if (channels <= 0 || width <= 0 || height <= 0) {
        return 0;
    }
    return offset(channels - 1, height - 1, width - 1) + 1;
}

void upload(const uint8_t* nchw, const FmapGeometry& g, uint8_t* ram) {
    const auto w = static_cast<size_t>(g.width);
    for (int c = 0; c < g.channels; ++c) {
        for (int y = 0; y < g.height; ++y) {
            std::memcpy(ram + g.offset(c, y, 0), nchw, w);
            nchw += w;
        }
    }
}

void download(const uint8_t* ram, const FmapGeometry& g, uint8_t* nchw) {
    const auto w = static_cast<size_t>(g.width);
    for (int c = 0; c < g.channels; ++c) {
        for (int y = 0; y < g.height; ++y) {
            std::memcpy(nchw, ram + g.offset(c, y, 0), w);
            nchw += w;
        }
    }
}

int pool_output_size(int in, uint32_t pool_type) {
    switch (pool_type) {
    case 1:
    case 2:
    case 5:
    case 6: return in / 2;
    case 3:
    case 4:
    case 7: return in / 4;
    default: return in;  // 0 bypass, 8 and 9 stride 1
    }
}

}  // namespace npu::kpu
