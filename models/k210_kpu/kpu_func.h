// K210 KPU datapath, bit-exact with the nncase v0.2/v1 emulator by default: convolution with the
// folded zero-point terms, batch-norm, 16-segment activation, pooling and write-back
// (../shared/reference/k210_kpu.md §3). Where the public emulators disagree, `Fidelity` selects
// the behaviour (docs/k210_kpu.md). Pure C++: no SystemC, no time.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/k210_kpu/kpu_layer_args.h"
#include "models/k210_kpu/kpu_layout.h"

namespace npu::kpu {

// kpu_batchnorm_argument_t: one 64-bit word per output channel.
struct BnParam {
    int32_t mul = 0;     // norm_mul, bits 0..23, signed
    uint32_t shift = 0;  // norm_shift, bits 56..59
    int32_t add = 0;     // norm_add, bits 24..55, signed
};
BnParam decode_bn(uint64_t word);
uint64_t encode_bn(const BnParam& p);

// One segment of kpu_activate_table_t.
struct ActSegment {
    int64_t x_start = 0;  // bits 24..59, signed 36-bit
    int32_t y_mul = 0;    // bits 8..23, signed 16-bit
    uint32_t shift = 0;   // shift_number, bits 0..7
    uint8_t bias = 0;     // result_bias[i]
};
using ActTable = std::array<ActSegment, 16>;
constexpr size_t kActTableBytes = 18 * 8;  // 16 segment words + 2 words of 8 biases
ActTable decode_act(const uint8_t* bytes);
void encode_act(const ActTable& t, uint8_t* bytes);

// Which segment a value falls in. nncase v0.2/v1: the last i with v > x_start[i] (default);
// nncase v0.1: the last i with v >= x_start[i]. They differ only at v == x_start[i].
enum class SegmentRule { GreaterThan, GreaterEqual };
// The activation shift. nncase v0.2/v1 carry_shift<Banker> (default; half to even for
// non-negative values, its own stepping for negative ones); nncase v0.1 CarryShift.
enum class ActRounding { Banker, Carry };
// Accumulator/BN values beyond signed 36 bits (KPU_BN_OUT_BITS; silicon behaviour unknown):
// keep the 64-bit value as the emulator does (default), or wrap / saturate to 36 bits.
enum class Overflow { Keep64, Wrap36, Saturate36 };

struct Fidelity {
    SegmentRule segment = SegmentRule::GreaterThan;
    ActRounding rounding = ActRounding::Banker;
    Overflow overflow = Overflow::Keep64;
};

int64_t act_shift(int64_t value, uint32_t shift, ActRounding rounding);
uint8_t activate(int64_t v, const ActTable& t, const Fidelity& f);
// Applies the overflow policy to one 64-bit value; returns true if it was out of 36-bit range.
bool limit36(int64_t& v, Overflow policy);

// Pools C planes of H x W (dense) with pool type 0..9 into C planes of pool_output_size().
void pool(const uint8_t* in, int channels, int height, int width, uint32_t pool_type, uint8_t* out);

// Bytes of weights the layer uses: OC · (depthwise ? 1 : IC) · k² · (8-bit ? 1 : 2).
uint64_t weight_bytes(const LayerArgs& a, bool eight_bit);

// What the KPU fetched from system memory for one layer.
struct LayerParams {
    const uint8_t* weights = nullptr;  // weight_bytes() bytes, [oc][ic][ky][kx], u8 or u16 LE
    std::vector<BnParam> bn;           // one per output channel
    ActTable act{};
};

struct LayerResult {
    uint64_t macs = 0;                  // OC · H · W · k² · (depthwise ? 1 : IC)
    uint64_t overflows = 0;             // accumulator or BN values beyond signed 36 bits
    std::vector<uint8_t> dense_output;  // pooled output, dense NCHW: the FIFO stream
};

// Runs one layer against the 2 MiB KPU RAM `ram`: reads the input at image_src_addr in the layout
// the layer's fields describe, writes the pooled output at image_dst_addr in the wb_* layout, and
// returns the dense output. The layer must have passed validate() (or be run knowingly).
LayerResult run_layer(const LayerArgs& a, const LayerParams& p, bool eight_bit, const Fidelity& f,
                      uint8_t* ram);

// Geometry of the layer's input and output as its fields describe them.
FmapGeometry input_geometry(const LayerArgs& a);
FmapGeometry output_geometry(const LayerArgs& a);

}  // namespace npu::kpu
