// Compiled with -ffp-contract=off (CMakeLists.txt): the fused and unfused forms below must be
// exactly what they say, whatever the host compiler would contract.
#include "platforms/k210/kmodel/cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_detail.h"

namespace npu::k210 {

namespace cpu_detail {

Shape4 read_shape(sim::ByteReader& r, const char* what) {
    Shape4 s{};
    for (int32_t& d : s) {
        d = r.i32(what);
    }
    return s;
}

float mul_add(float a, float b, float c, bool fused) {
    return fused ? std::fma(a, b, c) : a * b + c;
}

uint8_t clamp_u8(int32_t v) {
    return static_cast<uint8_t>(std::clamp(v, 0, 255));
}

uint64_t offset4(const Shape4& s, const Shape4& i) {
    return ((static_cast<uint64_t>(i[0]) * static_cast<uint64_t>(s[1]) +
             static_cast<uint64_t>(i[1])) *
                static_cast<uint64_t>(s[2]) +
            static_cast<uint64_t>(i[2])) *
               static_cast<uint64_t>(s[3]) +
           static_cast<uint64_t>(i[3]);
}

int32_t wrap(int64_t v) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

}  // namespace cpu_detail

using namespace cpu_detail;

namespace {

// RV64 division: by zero gives −1 and INT32_MIN / −1 gives INT32_MIN (the M extension never
// traps).
int32_t divw(int32_t a, int32_t b) {
    if (b == 0) {
        return -1;
    }
    if (a == std::numeric_limits<int32_t>::min() && b == -1) {
        return a;
    }
    return a / b;
}

int32_t binary(BinaryOp op, int32_t a, int32_t b) {
    switch (op) {
    case BinaryOp::add: return wrap(int64_t{a} + b);
    case BinaryOp::sub: return wrap(int64_t{a} - b);
    case BinaryOp::mul: return wrap(int64_t{a} * b);
    case BinaryOp::div: return divw(wrap(int64_t{a} + b / 2), b);  // (a + b / 2) / b
    case BinaryOp::min: return std::min(a, b);
    case BinaryOp::max: return std::max(a, b);
    }
    return 0;
}

}  // namespace

// ---------------------------------------------------------------- bodies

V3Dequantize read_v3_dequantize(sim::ByteReader& r) {
    V3Dequantize d;
    r.u32("DEQUANTIZE flags");
    d.in_address = r.u32("main_mem_in_address");
    d.out_address = r.u32("main_mem_out_address");
    d.count = r.u32("count");
    d.scale = r.f32("scale");
    d.bias = r.f32("bias");
    return d;
}

V4QuantParam read_v4_quant_param(sim::ByteReader& r, const char* what) {
    V4QuantParam d;
    d.in = read_memory_range(r, what);
    d.out = read_memory_range(r, what);
    d.zero_point = r.i32("zero_point");
    d.scale = r.f32("scale");
    return d;
}

V4Upload read_v4_upload(sim::ByteReader& r) {
    V4Upload u;
    u.in = read_memory_range(r, "kpu_upload input");
    u.out = read_memory_range(r, "kpu_upload output");
    u.shape = read_shape(r, "kpu_upload shape");
    return u;
}

V4MemoryCopy read_v4_memory_copy(sim::ByteReader& r) {
    V4MemoryCopy m;
    m.in = read_memory_range(r, "memory_copy input");
    m.out = read_memory_range(r, "memory_copy output");
    return m;
}

V4Concat read_v4_concat(sim::ByteReader& r) {
    V4Concat c;
    c.out = read_memory_range(r, "concat output");
    c.inner_size = r.u32("concat inner_size");
    c.outer_size = r.u32("concat outer_size");
    const uint32_t n = r.count("concat inputs_count", 20);  // a range and a dim per input
    for (uint32_t i = 0; i < n; ++i) {
        c.inputs.push_back(read_memory_range(r, "concat input"));
    }
    for (uint32_t i = 0; i < n; ++i) {
        c.dims.push_back(r.i32("concat dims"));
    }
    return c;
}

V4Pad read_v4_pad(sim::ByteReader& r) {
    V4Pad p;
    p.in = read_memory_range(r, "pad input");
    p.out = read_memory_range(r, "pad output");
    p.in_shape = read_shape(r, "pad in_shape");
    for (Padding& d : p.paddings) {
        d.before = r.i32("pad paddings");
        d.after = r.i32("pad paddings");
    }
    r.u32("pad_value type");
    const uint8_t* v = r.bytes(4, "pad_value");
    std::copy(v, v + 4, p.pad_value.begin());
    return p;
}

V4Transpose read_v4_transpose(sim::ByteReader& r) {
    V4Transpose t;
    t.in = read_memory_range(r, "transpose input");
    t.out = read_memory_range(r, "transpose output");
    t.in_shape = read_shape(r, "transpose in_shape");
    t.perm = read_shape(r, "transpose perm");
    return t;
}

V4QuantizedBinary read_v4_quantized_binary(sim::ByteReader& r) {
    V4QuantizedBinary q;
    q.a = read_memory_range(r, "quantized_binary input_a");
    q.b = read_memory_range(r, "quantized_binary input_b");
    q.out = read_memory_range(r, "quantized_binary output");
    const size_t at = r.pos();
    const uint32_t op = r.u32("quantized_binary binary_op");
    if (op > static_cast<uint32_t>(BinaryOp::max)) {
        r.fail(at, "quantized_binary binary_op",
               fmt::format("is {}, expected 0..5 (add, sub, mul, div, min, max)", op));
    }
    q.op = static_cast<BinaryOp>(op);
    q.a_shape = read_shape(r, "quantized_binary in_a_shape");
    q.b_shape = read_shape(r, "quantized_binary in_b_shape");
    q.out_shape = read_shape(r, "quantized_binary out_shape");
    q.a_offset = r.i32("input_a_offset");
    q.a_mul = r.i32("input_a_mul");
    q.a_shift = r.i32("input_a_shift");
    q.b_offset = r.i32("input_b_offset");
    q.b_mul = r.i32("input_b_mul");
    q.b_shift = r.i32("input_b_shift");
    q.out_offset = r.i32("output_offset");
    q.out_mul = r.i32("output_mul");
    q.out_shift = r.i32("output_shift");
    return q;
}

namespace cpu_detail {

ValueRange read_value_range(sim::ByteReader& r, const char* what) {
    ValueRange v;
    v.min = r.f32(what);
    v.max = r.f32(what);
    return v;
}

Padding read_padding(sim::ByteReader& r, const char* what) {
    const size_t at = r.pos();
    Padding p;
    p.before = r.i32(what);
    p.after = r.i32(what);
    if (std::abs(int64_t{p.before}) > (1 << 24) || std::abs(int64_t{p.after}) > (1 << 24)) {
        r.fail(at, what, fmt::format("is ({}, {}), expected within ±2^24", p.before, p.after));
    }
    return p;
}

// A positive geometry field (filter, stride, dilation): 1..65535.
int32_t read_positive(sim::ByteReader& r, const char* what) {
    const size_t at = r.pos();
    const int32_t v = r.i32(what);
    if (v < 1 || v > 65535) {
        r.fail(at, what, fmt::format("is {}, expected 1..65535", v));
    }
    return v;
}

Shape4 read_dims(sim::ByteReader& r, const char* what) {
    const size_t at = r.pos();
    const Shape4 s = read_shape(r, what);
    for (int32_t d : s) {
        if (d < 0 || d > (1 << 24)) {
            r.fail(at, what,
                   fmt::format("({}, {}, {}, {}) has a dimension outside 0..2^24", s[0], s[1], s[2],
                               s[3]));
        }
    }
    return s;
}

std::vector<float> read_f32s(sim::ByteReader& r, uint64_t n, const char* what) {
    if (n > r.remaining() / 4) {
        r.fail(r.pos(), what,
               fmt::format("{} floats do not fit in the {} bytes that follow", n, r.remaining()));
    }
    std::vector<float> v(static_cast<size_t>(n));
    for (float& f : v) {
        f = r.f32(what);
    }
    return v;
}

uint32_t read_enum(sim::ByteReader& r, const char* what, uint32_t max, const char* names) {
    const size_t at = r.pos();
    const uint32_t v = r.u32(what);
    if (v > max) {
        r.fail(at, what, fmt::format("is {}, expected 0..{} ({})", v, max, names));
    }
    return v;
}

std::pair<int32_t, int32_t> read_groups(sim::ByteReader& r, const char* op, int32_t in_channels) {
    const size_t at = r.pos();
    const std::string what = std::string(op) + " groups";
    const int32_t groups = r.i32(what.c_str());
    const int32_t out_channels = r.i32((std::string(op) + " out_channels").c_str());
    if (groups < 1 || out_channels < 1 || in_channels % groups != 0 || out_channels % groups != 0) {
        r.fail(at, what.c_str(),
               fmt::format("groups {} and out_channels {} with {} input channels: expected "
                           "groups ≥ 1 dividing both channel counts",
                           groups, out_channels, in_channels));
    }
    return {groups, out_channels};
}

}  // namespace cpu_detail

namespace {

BinaryOp read_binary_op(sim::ByteReader& r, const char* what) {
    return static_cast<BinaryOp>(
        read_enum(r, what, static_cast<uint32_t>(BinaryOp::max), "add, sub, mul, div, min, max"));
}

}  // namespace

Window2d read_window2d(sim::ByteReader& r, const char* op) {
    const auto field = [op](const char* f) {
        return std::string(op) + " " + f;
    };
    Window2d w;
    w.pad_h = read_padding(r, field("padding_h").c_str());
    w.pad_w = read_padding(r, field("padding_w").c_str());
    w.filter_h = read_positive(r, field("filter_h").c_str());
    w.filter_w = read_positive(r, field("filter_w").c_str());
    w.stride_h = read_positive(r, field("stride_h").c_str());
    w.stride_w = read_positive(r, field("stride_w").c_str());
    w.dilation_h = read_positive(r, field("dilation_h").c_str());
    w.dilation_w = read_positive(r, field("dilation_w").c_str());
    return w;
}

V4Binary read_v4_binary(sim::ByteReader& r) {
    V4Binary b;
    b.a = read_memory_range(r, "binary input_a");
    b.b = read_memory_range(r, "binary input_b");
    b.out = read_memory_range(r, "binary output");
    b.op = read_binary_op(r, "binary binary_op");
    b.a_shape = read_dims(r, "binary in_a_shape");
    b.b_shape = read_dims(r, "binary in_b_shape");
    b.out_shape = read_dims(r, "binary out_shape");
    b.act = read_value_range(r, "binary fused_activation");
    return b;
}

V4Conv2d read_v4_conv2d(sim::ByteReader& r) {
    V4Conv2d c;
    c.in = read_memory_range(r, "conv2d input");
    c.out = read_memory_range(r, "conv2d output");
    c.in_shape = read_dims(r, "conv2d in_shape");
    std::tie(c.groups, c.out_channels) = read_groups(r, "conv2d", c.in_shape[1]);
    c.win = read_window2d(r, "conv2d");
    c.act = read_value_range(r, "conv2d fused_activation");
    const uint64_t n =
        static_cast<uint64_t>(c.out_channels) * static_cast<uint64_t>(c.in_shape[1] / c.groups) *
        static_cast<uint64_t>(c.win.filter_h) * static_cast<uint64_t>(c.win.filter_w);
    c.weights = read_f32s(r, n, "conv2d weights");
    c.bias = read_f32s(r, static_cast<uint64_t>(c.out_channels), "conv2d bias");
    return c;
}

V4Matmul read_v4_matmul(sim::ByteReader& r) {
    V4Matmul m;
    m.a = read_memory_range(r, "matmul input_a");
    m.b = read_memory_range(r, "matmul input_b");
    m.out = read_memory_range(r, "matmul output");
    read_matmul_dims(r, "matmul", m.a_rows, m.a_cols, m.b_cols);
    m.act = read_value_range(r, "matmul fused_activation");
    m.bias = read_f32s(r, static_cast<uint64_t>(m.b_cols), "matmul bias");
    return m;
}

V4ReduceWindow2d read_v4_reduce_window2d(sim::ByteReader& r) {
    V4ReduceWindow2d w;
    w.in = read_memory_range(r, "reduce_window2d input");
    w.out = read_memory_range(r, "reduce_window2d output");
    const size_t at = r.pos();
    const uint32_t op = r.u32("reduce_window2d reduce_op");
    if (op > static_cast<uint32_t>(ReduceOp::sum)) {
        r.fail(at, "reduce_window2d reduce_op",
               fmt::format("is {}, expected 0..3 (mean, min, max, sum)", op));
    }
    w.op = static_cast<ReduceOp>(op);
    w.in_shape = read_dims(r, "reduce_window2d in_shape");
    w.win = read_window2d(r, "reduce_window2d");
    w.init_value = r.f32("reduce_window2d init_value");
    w.act = read_value_range(r, "reduce_window2d fused_activation");
    return w;
}

V4Softmax read_v4_softmax(sim::ByteReader& r) {
    V4Softmax s;
    s.in = read_memory_range(r, "softmax input");
    s.out = read_memory_range(r, "softmax output");
    const size_t at = r.pos();
    s.inner_size = r.i32("softmax inner_size");
    s.outer_size = r.i32("softmax outer_size");
    if (s.inner_size < 1 || s.outer_size < 0) {
        r.fail(at, "softmax inner_size",
               fmt::format("inner_size {}, outer_size {}: expected inner ≥ 1, outer ≥ 0",
                           s.inner_size, s.outer_size));
    }
    s.beta = r.f32("softmax beta");
    return s;
}

// ---------------------------------------------------------------- kernels

int32_t fcvt_w_s_rne(float v) {
    if (std::isnan(v) || v >= 2147483648.0f) {
        return std::numeric_limits<int32_t>::max();
    }
    if (v < -2147483648.0f) {
        return std::numeric_limits<int32_t>::min();
    }
    return static_cast<int32_t>(std::nearbyint(v));  // the default rounding mode: ties to even
}

int32_t round_half_away_w_s(float v) {
    const float r = std::round(v);
    if (std::isnan(r) || r >= 2147483648.0f) {
        return std::numeric_limits<int32_t>::max();
    }
    if (r < -2147483648.0f) {
        return std::numeric_limits<int32_t>::min();
    }
    return static_cast<int32_t>(r);
}

int32_t mul_and_carry_shift(int32_t value, int32_t mul, int32_t shift) {
    int64_t v = int64_t{value} * mul;
    const auto s = static_cast<uint8_t>(shift);
    if (s > 0) {
        // nncase v0.2.0-beta4 carry_shift<int64_t>: `value += T(1) << (shift - 1)` with T the
        // 64-bit product type (RV64 sll: amount mod 64), adds wrapping; then an arithmetic shift
        // (sra: amount mod 64). (Before beta4 the half was a 32-bit `1 << (shift - 1)`, which
        // wraps from shift 32 on.)
        const uint64_t half = uint64_t{1} << ((s - 1u) & 63u);
        v = static_cast<int64_t>(static_cast<uint64_t>(v) + half);
        v >>= (s & 63u);
    }
    return static_cast<int32_t>(v);
}

void dequantize_v3(const uint8_t* q, size_t count, float scale, float bias, float* out, bool fma) {
    for (size_t i = 0; i < count; ++i) {
        out[i] = mul_add(static_cast<float>(q[i]), scale, bias, fma);
    }
}

void quantize_v3(const float* x, size_t count, float scale, float bias, uint8_t* out) {
    const float inv = 1.0f / scale;
    for (size_t i = 0; i < count; ++i) {
        const float v = std::round((x[i] - bias) * inv);
        out[i] = static_cast<uint8_t>(std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 255.0f));
    }
}

void add_v3(const float* a, const float* b, size_t count, float* out) {
    for (size_t i = 0; i < count; ++i) {
        out[i] = a[i] + b[i];
    }
}

void global_average_pool_v3(const float* in, size_t channels, size_t kernel_size, float* out) {
    for (size_t c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (size_t i = 0; i < kernel_size; ++i) {
            sum += *in++;
        }
        out[c] = sum / static_cast<float>(kernel_size);
    }
}

void softmax_v3(const float* in, size_t channels, float* out) {
    float max = std::numeric_limits<float>::min();
    for (size_t c = 0; c < channels; ++c) {
        max = std::fmax(max, in[c]);
    }
    float sum = 0.0f;
    for (size_t c = 0; c < channels; ++c) {
        out[c] = std::exp(in[c] - max);
        sum += out[c];
    }
    for (size_t c = 0; c < channels; ++c) {
        out[c] /= sum;
    }
}

void fully_connected_v3(const float* in, const float* weights, const float* bias,
                        size_t in_channels, size_t out_channels, uint32_t act, float* out,
                        bool fma) {
    for (size_t o = 0; o < out_channels; ++o) {
        const float* w = weights + o * in_channels;
        float sum = 0.0f;
        for (size_t i = 0; i < in_channels; ++i) {
            sum = mul_add(in[i], w[i], sum, fma);
        }
        float v = sum + bias[o];
        if (act == 1 || act == 2) {
            v = std::max(v, 0.0f);
        }
        out[o] = act == 2 ? std::min(v, 6.0f) : v;
    }
}

void dequantize_v4(const uint8_t* q, size_t count, int32_t zero_point, float scale, float* out,
                   bool fma) {
    const float s = 1.0f / scale;
    // -param.zero_point in 32 bits as RV64's negw computes it: −INT32_MIN wraps to INT32_MIN.
    const float z = static_cast<float>(wrap(-int64_t{zero_point})) * s;
    for (size_t i = 0; i < count; ++i) {
        out[i] = mul_add(static_cast<float>(q[i]), s, z, fma);
    }
}

void quantize_v4(const float* x, size_t count, int32_t zero_point, float scale, uint8_t* out,
                 bool fma) {
    const auto zero = static_cast<float>(zero_point);
    const size_t pairs = count / 2 * 2;
    for (size_t i = 0; i < pairs; ++i) {
        out[i] = clamp_u8(fcvt_w_s_rne(mul_add(x[i], scale, zero, fma)));
    }
    if (count % 2 != 0) {
        out[count - 1] = clamp_u8(round_half_away_w_s(mul_add(x[count - 1], scale, zero, fma)));
    }
}

uint64_t shape_elements(const Shape4& s) {
    uint64_t n = 1;
    for (int32_t d : s) {
        if (d < 0) {
            return 0;
        }
        n *= static_cast<uint64_t>(d);
    }
    return n;
}

Shape4 padded_shape(const Shape4& in, const std::array<Padding, 4>& p) {
    Shape4 out{};
    for (size_t k = 0; k < 4; ++k) {
        out[k] = static_cast<int32_t>(int64_t{in[k]} + p[k].before + p[k].after);
    }
    return out;
}

Shape4 transposed_shape(const Shape4& in, const Shape4& perm) {
    Shape4 out{};
    for (size_t k = 0; k < 4; ++k) {
        out[k] = in[static_cast<size_t>(perm[k])];
    }
    return out;
}

void pad(const uint8_t* in, size_t elem, const Shape4& in_shape,
         const std::array<Padding, 4>& paddings, const std::array<uint8_t, 4>& value,
         uint8_t* out) {
    const Shape4 os = padded_shape(in_shape, paddings);
    Shape4 o{}, i{};
    for (o[0] = 0; o[0] < os[0]; ++o[0]) {
        for (o[1] = 0; o[1] < os[1]; ++o[1]) {
            for (o[2] = 0; o[2] < os[2]; ++o[2]) {
                for (o[3] = 0; o[3] < os[3]; ++o[3]) {
                    bool inside = true;
                    for (size_t k = 0; k < 4; ++k) {
                        i[k] = o[k] - paddings[k].before;
                        inside = inside && i[k] >= 0 && i[k] < in_shape[k];
                    }
                    const uint8_t* src = inside ? in + offset4(in_shape, i) * elem : value.data();
                    std::copy(src, src + elem, out);
                    out += elem;
                }
            }
        }
    }
}

void transpose(const uint8_t* in, size_t elem, const Shape4& in_shape, const Shape4& perm,
               uint8_t* out) {
    const Shape4 os = transposed_shape(in_shape, perm);
    Shape4 o{}, i{};
    for (o[0] = 0; o[0] < os[0]; ++o[0]) {
        i[static_cast<size_t>(perm[0])] = o[0];
        for (o[1] = 0; o[1] < os[1]; ++o[1]) {
            i[static_cast<size_t>(perm[1])] = o[1];
            for (o[2] = 0; o[2] < os[2]; ++o[2]) {
                i[static_cast<size_t>(perm[2])] = o[2];
                for (o[3] = 0; o[3] < os[3]; ++o[3]) {
                    i[static_cast<size_t>(perm[3])] = o[3];
                    const uint8_t* src = in + offset4(in_shape, i) * elem;
                    std::copy(src, src + elem, out + offset4(os, o) * elem);
                }
            }
        }
    }
}

void quantized_binary(const uint8_t* a, const uint8_t* b, const V4QuantizedBinary& p,
                      uint8_t* out) {
    const Shape4& os = p.out_shape;
    Shape4 o{}, ia{}, ib{};
    for (o[0] = 0; o[0] < os[0]; ++o[0]) {
        for (o[1] = 0; o[1] < os[1]; ++o[1]) {
            for (o[2] = 0; o[2] < os[2]; ++o[2]) {
                for (o[3] = 0; o[3] < os[3]; ++o[3]) {
                    for (size_t k = 0; k < 4; ++k) {  // broadcast: a dimension of 1 repeats
                        ia[k] = p.a_shape[k] == 1 ? 0 : o[k];
                        ib[k] = p.b_shape[k] == 1 ? 0 : o[k];
                    }
                    const int32_t va = mul_and_carry_shift(
                        wrap(int64_t{a[offset4(p.a_shape, ia)]} + p.a_offset), p.a_mul, p.a_shift);
                    const int32_t vb = mul_and_carry_shift(
                        wrap(int64_t{b[offset4(p.b_shape, ib)]} + p.b_offset), p.b_mul, p.b_shift);
                    const int32_t v =
                        mul_and_carry_shift(binary(p.op, va, vb), p.out_mul, p.out_shift);
                    out[offset4(os, o)] = clamp_u8(wrap(int64_t{v} + p.out_offset));
                }
            }
        }
    }
}

// ---------------------------------------------------------------- v4 float kernels

namespace cpu_detail {

float activate(float v, const ValueRange& a) {
    return v < a.min ? a.min : (a.max < v ? a.max : v);
}

std::pair<int64_t, int64_t> taps(int64_t origin, int64_t size, int64_t filter, int64_t dilation) {
    const int64_t start = std::max<int64_t>(0, (-origin + dilation - 1) / dilation);
    const int64_t end = std::min<int64_t>(filter, (size - origin + dilation - 1) / dilation);
    return {start, end};
}

int64_t windowed_output_size(int32_t size, int32_t filter, int32_t stride, int32_t dilation,
                             const Padding& p) {
    const int64_t effective = (int64_t{filter} - 1) * dilation + 1;
    const int64_t num = int64_t{size} + p.before + p.after - effective + stride;
    // C++ division truncates toward zero, as nncase's int32 division does.
    return num / stride;
}

}  // namespace cpu_detail

namespace {

// Σ over the outputs along one axis of the in-bounds taps.
uint64_t axis_taps(int32_t size, int32_t filter, int32_t stride, int32_t dilation,
                   const Padding& p) {
    uint64_t n = 0;
    const int64_t outs = windowed_output_size(size, filter, stride, dilation, p);
    for (int64_t o = 0; o < outs; ++o) {
        const auto [k0, k1] = taps(o * stride - p.before, size, filter, dilation);
        n += k1 > k0 ? static_cast<uint64_t>(k1 - k0) : 0u;
    }
    return n;
}

}  // namespace

int64_t Window2d::out_h(const Shape4& in) const {
    return windowed_output_size(in[2], filter_h, stride_h, dilation_h, pad_h);
}

int64_t Window2d::out_w(const Shape4& in) const {
    return windowed_output_size(in[3], filter_w, stride_w, dilation_w, pad_w);
}

uint64_t in_bounds_taps(const Window2d& w, const Shape4& in) {
    // The count at (oy, ox) is (in-bounds rows) · (in-bounds columns): the sum factorises.
    return axis_taps(in[2], w.filter_h, w.stride_h, w.dilation_h, w.pad_h) *
           axis_taps(in[3], w.filter_w, w.stride_w, w.dilation_w, w.pad_w);
}

void binary_f32(const float* a, const float* b, const V4Binary& p, float* out) {
    const auto op = [&](float x, float y) {
        switch (p.op) {
        case BinaryOp::add: return x + y;
        case BinaryOp::sub: return x - y;
        case BinaryOp::mul: return x * y;
        case BinaryOp::div: return x / y;
        case BinaryOp::min: return y < x ? y : x;  // std::min
        case BinaryOp::max: return x < y ? y : x;  // std::max
        }
        return 0.0f;
    };
    const Shape4& os = p.out_shape;
    Shape4 o{}, ia{}, ib{};
    for (o[0] = 0; o[0] < os[0]; ++o[0]) {
        for (o[1] = 0; o[1] < os[1]; ++o[1]) {
            for (o[2] = 0; o[2] < os[2]; ++o[2]) {
                for (o[3] = 0; o[3] < os[3]; ++o[3]) {
                    for (size_t k = 0; k < 4; ++k) {
                        ia[k] = p.a_shape[k] == 1 ? 0 : o[k];
                        ib[k] = p.b_shape[k] == 1 ? 0 : o[k];
                    }
                    out[offset4(os, o)] =
                        activate(op(a[offset4(p.a_shape, ia)], b[offset4(p.b_shape, ib)]), p.act);
                }
            }
        }
    }
}

uint64_t conv2d_f32(const float* in, const V4Conv2d& p, float* out, bool fma) {
    const Shape4& s = p.in_shape;
    const Window2d& w = p.win;
    const int64_t oh = w.out_h(s), ow = w.out_w(s);
    const int64_t g_ic = s[1] / p.groups, g_oc = p.out_channels / p.groups;
    const int64_t plane = int64_t{s[2]} * s[3];
    const int64_t fsize = int64_t{w.filter_h} * w.filter_w;
    uint64_t macs = 0;
    for (int64_t n = 0; n < s[0]; ++n) {
        const float* in_n = in + n * s[1] * plane;
        for (int64_t g = 0; g < p.groups; ++g) {
            const float* in_g = in_n + g * g_ic * plane;
            const float* w_g = p.weights.data() + g * g_oc * g_ic * fsize;
            for (int64_t oc = 0; oc < g_oc; ++oc) {
                const float* w_oc = w_g + oc * g_ic * fsize;
                for (int64_t oy = 0; oy < oh; ++oy) {
                    const int64_t y0 = oy * w.stride_h - w.pad_h.before;
                    const auto [ky0, ky1] = taps(y0, s[2], w.filter_h, w.dilation_h);
                    for (int64_t ox = 0; ox < ow; ++ox) {
                        const int64_t x0 = ox * w.stride_w - w.pad_w.before;
                        const auto [kx0, kx1] = taps(x0, s[3], w.filter_w, w.dilation_w);
                        float v = p.bias[static_cast<size_t>(g * g_oc + oc)];
                        for (int64_t ic = 0; ic < g_ic; ++ic) {
                            const float* in_c = in_g + ic * plane;
                            const float* w_ic = w_oc + ic * fsize;
                            for (int64_t ky = ky0; ky < ky1; ++ky) {
                                const int64_t y = y0 + w.dilation_h * ky;
                                for (int64_t kx = kx0; kx < kx1; ++kx) {
                                    const int64_t x = x0 + w.dilation_w * kx;
                                    v = mul_add(in_c[y * s[3] + x], w_ic[ky * w.filter_w + kx], v,
                                                fma);
                                }
                            }
                        }
                        if (ky1 > ky0 && kx1 > kx0) {
                            macs += static_cast<uint64_t>(g_ic * (ky1 - ky0) * (kx1 - kx0));
                        }
                        *out++ = activate(v, p.act);
                    }
                }
            }
        }
    }
    return macs;
}

uint64_t matmul_f32(const float* a, const float* b, const V4Matmul& p, float* out, bool fma) {
    const auto rows = static_cast<size_t>(p.a_rows), cols = static_cast<size_t>(p.a_cols),
               bcols = static_cast<size_t>(p.b_cols);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < bcols; ++c) {
            float v = p.bias[c];
            for (size_t i = 0; i < cols; ++i) {
                v = mul_add(a[r * cols + i], b[i * bcols + c], v, fma);
            }
            out[r * bcols + c] = activate(v, p.act);
        }
    }
    return static_cast<uint64_t>(rows) * cols * bcols;
}

void reduce_window2d_f32(const float* in, const V4ReduceWindow2d& p, float* out) {
    const Shape4& s = p.in_shape;
    const Window2d& w = p.win;
    const int64_t oh = w.out_h(s), ow = w.out_w(s);
    const int64_t plane = int64_t{s[2]} * s[3];
    for (int64_t nc = 0; nc < int64_t{s[0]} * s[1]; ++nc) {
        const float* in_c = in + nc * plane;
        for (int64_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = oy * w.stride_h - w.pad_h.before;
            const auto [ky0, ky1] = taps(y0, s[2], w.filter_h, w.dilation_h);
            for (int64_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = ox * w.stride_w - w.pad_w.before;
                const auto [kx0, kx1] = taps(x0, s[3], w.filter_w, w.dilation_w);
                float v = p.init_value;
                int32_t count = 0;
                for (int64_t ky = ky0; ky < ky1; ++ky) {
                    for (int64_t kx = kx0; kx < kx1; ++kx) {
                        const float x =
                            in_c[(y0 + w.dilation_h * ky) * s[3] + x0 + w.dilation_w * kx];
                        switch (p.op) {
                        case ReduceOp::mean:
                        case ReduceOp::sum: v = v + x; break;
                        case ReduceOp::min: v = x < v ? x : v; break;
                        case ReduceOp::max: v = v < x ? x : v; break;
                        }
                        ++count;
                    }
                }
                if (p.op == ReduceOp::mean) {
                    v = v / static_cast<float>(count);
                }
                *out++ = activate(v, p.act);
            }
        }
    }
}

void softmax_v4(const float* in, const V4Softmax& p, float* out) {
    const auto inner = static_cast<size_t>(p.inner_size);
    for (int32_t b = 0; b < p.outer_size; ++b) {
        const float* src = in + static_cast<size_t>(b) * inner;
        float* dst = out + static_cast<size_t>(b) * inner;
        float max = src[0];  // std::max_element: the first of the largest
        for (size_t i = 1; i < inner; ++i) {
            if (max < src[i]) {
                max = src[i];
            }
        }
        float sum = 0.0f;
        for (size_t i = 0; i < inner; ++i) {
            const float v = std::exp((src[i] - max) * p.beta);
            sum += v;
            dst[i] = v;
        }
        for (size_t i = 0; i < inner; ++i) {
            dst[i] /= sum;
        }
    }
}

}  // namespace npu::k210
