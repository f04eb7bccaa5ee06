#include "platforms/k210/kmodel/runtime_detail.h"

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_v3.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

thread_local uint64_t t_cpu_work_limit = kDefaultCpuWorkLimit;  // (cpu_work_limit)

}  // namespace npu::k210::detail

namespace npu::k210 {

uint64_t cpu_work_limit() {
    return detail::t_cpu_work_limit;
}

ScopedCpuWorkLimit::ScopedCpuWorkLimit(uint64_t limit)
    : m_before(detail::t_cpu_work_limit) {
    detail::t_cpu_work_limit = limit;
}

ScopedCpuWorkLimit::~ScopedCpuWorkLimit() {
    detail::t_cpu_work_limit = m_before;
}

}  // namespace npu::k210

namespace npu::k210::detail {

const char* memory_name(uint32_t t) {
    static const char* const kNames[] = {"const", "main", "kpu"};
    return t < 3 ? kNames[t] : "?";
}

uint64_t memory_size(const Kmodel& m, uint32_t t) {
    switch (t) {
    case kConstMemory: return m.constants_bytes;
    case kMainMemory: return m.main_mem_bytes;
    default: return kpu::kRamBytes;
    }
}

size_t elem_size(uint32_t datatype) {
    return datatype == kFloat32 ? 4 : 1;
}

[[noreturn]] void fail(const Kmodel& m, const KmodelLayer& l, const std::string& why) {
    throw sim::Error(
        fmt::format("{}: {} at byte {:#x}: {}", m.name, l.type_name, l.body_offset, why));
}

void need(const Kmodel& m, const KmodelLayer& l, const MemoryRange& r, const char* what,
          uint64_t bytes) {
    if (r.size < bytes) {
        fail(m, l,
             fmt::format("the {} range holds {} bytes, the operation needs {}", what, r.size,
                         bytes));
    }
}

void check_shape(const Kmodel& m, const KmodelLayer& l, const Shape4& s, const char* what) {
    for (int32_t d : s) {
        if (d < 0 || d > (1 << 24)) {
            fail(m, l,
                 fmt::format("{} ({}, {}, {}, {}) has a dimension outside 0..2^24", what, s[0],
                             s[1], s[2], s[3]));
        }
    }
}

void write_range(RuntimeMemory& mem, const MemoryRange& r, const std::vector<uint8_t>& data) {
    mem.write(r.memory_type, r.start, data.data(), data.size());
    mem.result({r.memory_type, r.datatype, r.start, static_cast<uint32_t>(data.size())});
}

// An f32 range read as floats: the first `n` of them (the caller checked the size).
std::vector<float> read_floats(RuntimeMemory& mem, const MemoryRange& r, uint64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    mem.read(r.memory_type, r.start, v.data(), v.size() * 4);
    return v;
}

void write_floats(RuntimeMemory& mem, const MemoryRange& r, const std::vector<float>& v) {
    mem.write(r.memory_type, r.start, v.data(), v.size() * 4);
    mem.result({r.memory_type, kFloat32, r.start, static_cast<uint32_t>(v.size() * 4)});
}

void check_work(const Kmodel& m, const KmodelLayer& l, uint64_t outputs, uint64_t per_output) {
    const uint64_t limit = cpu_work_limit();
    if (per_output != 0 && outputs > limit / per_output) {
        fail(m, l,
             fmt::format("{} outputs of {} taps each exceed the {} operations a CPU node may "
                         "take",
                         outputs, per_output, limit));
    }
}

void check_broadcast(const Kmodel& m, const KmodelLayer& l, const Shape4& a, const Shape4& b,
                     const Shape4& out) {
    for (size_t k = 0; k < 4; ++k) {
        for (const Shape4* s : {&a, &b}) {
            if ((*s)[k] != 1 && (*s)[k] != out[k]) {
                fail(m, l,
                     fmt::format("an input shape ({}, {}, {}, {}) does not broadcast to the "
                                 "output ({}, {}, {}, {})",
                                 (*s)[0], (*s)[1], (*s)[2], (*s)[3], out[0], out[1], out[2],
                                 out[3]));
            }
        }
    }
}

uint64_t window_size(const Window2d& w) {
    return static_cast<uint64_t>(w.filter_h) * static_cast<uint64_t>(w.filter_w);
}

// The output plane of a window over `in`, N · C · out_h · out_w for `channels` output channels;
// an error naming the node when the window leaves no output.
uint64_t window_outputs(const Kmodel& m, const KmodelLayer& l, const Window2d& w, const Shape4& in,
                        int32_t channels) {
    const int64_t oh = w.out_h(in), ow = w.out_w(in);
    if (oh < 1 || ow < 1) {
        fail(m, l,
             fmt::format("a {}x{} filter (dilation {}x{}, stride {}x{}) leaves no output on the "
                         "{}x{} input with its padding",
                         w.filter_h, w.filter_w, w.dilation_h, w.dilation_w, w.stride_h, w.stride_w,
                         in[2], in[3]));
    }
    return static_cast<uint64_t>(in[0]) * static_cast<uint64_t>(channels) *
           static_cast<uint64_t>(oh) * static_cast<uint64_t>(ow);
}

void check_v3_pool(const Kmodel& m, const KmodelLayer& l, const V3Pool& p) {
    const auto axis = [&](const char* name, uint32_t outs, uint32_t stride, uint32_t pad,
                          uint32_t size) {
        if (outs == 0) {
            return;
        }
        const int64_t last = int64_t{outs - 1} * stride - pad;
        if (last > size) {
            fail(m, l,
                 fmt::format("output {} {} starts its window at {}, past the {}-wide input", name,
                             outs - 1, last, size));
        }
    };
    axis("column", p.out_shape.width, p.stride_w, p.pad_w, p.in_shape.width);
    axis("row", p.out_shape.height, p.stride_h, p.pad_h, p.in_shape.height);
}

}  // namespace npu::k210::detail
