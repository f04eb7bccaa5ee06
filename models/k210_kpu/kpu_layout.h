// K210 KPU feature-map RAM: 2 MiB of 64-byte lines, and the row layout the KPU reads and writes
// (../shared/reference/k210_kpu.md §3.1). Upload packs dense NCHW uint8 into that layout; download
// is the inverse. Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>

namespace npu::kpu {

constexpr uint64_t kLineBytes = 64;
constexpr uint64_t kRamBytes = 2u << 20;
constexpr uint64_t kRamLines = kRamBytes / kLineBytes;  // 32768: 15-bit line addresses

// How one channel's rows sit in the RAM for a width W.
struct RowLayout {
    uint32_t groups;  // G: channels sharing a 64-byte line (4 for W <= 16, 2 for W <= 32, else 1)
    uint32_t row_lines;  // R: lines per row (ceil(W / 64) for W > 32, else 1)
    uint32_t pitch;      // P: bytes between the channels of a group in a line (64 / G)
};
RowLayout row_layout(int width);

// Lines a C x H x W feature map occupies: R · H · ceil(C / G).
uint64_t fmap_lines(int channels, int width, int height);

// The same geometry as it appears in layer fields: G (coef_group), R (row_switch_addr) and the
// channel-block stride in lines (channel_switch_addr). The datapath addresses by these, so a layer
// whose fields disagree with its width reads what the hardware would read.
struct FmapGeometry {
    int channels, width, height;
    uint32_t groups, row_lines, channel_stride_lines;

    static FmapGeometry natural(int channels, int width, int height);
    uint32_t pitch() const { return static_cast<uint32_t>(kLineBytes) / groups; }
    // Byte offset of element (c, y, x) from the feature map's first line.
    uint64_t offset(int c, int y, int x) const {
        const auto uc = static_cast<uint64_t>(c);
        return (uc / groups) * channel_stride_lines * kLineBytes +
               static_cast<uint64_t>(y) * row_lines * kLineBytes + (uc % groups) * pitch() +
               static_cast<uint64_t>(x);
    }
    // One past the last byte the map touches.
    uint64_t extent() const;
};

// Dense NCHW (one image) <-> KPU layout at `ram` (the map's first line). Bytes of a line that no
// element covers are left untouched.
void upload(const uint8_t* nchw, const FmapGeometry& g, uint8_t* ram);
void download(const uint8_t* ram, const FmapGeometry& g, uint8_t* nchw);

// Output size of one spatial dimension after pool type 0..9 (floor(in / stride)).
int pool_output_size(int in, uint32_t pool_type);

}  // namespace npu::kpu
