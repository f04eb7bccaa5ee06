// libFuzzer target for the kmodel v3/v4 readers and the runtime's CPU layer bodies: any bytes
// give a model or one sim::Error, and every CPU layer of a model that parses runs against
// zeroed memories or fails with one sim::Error. Seeds: the bundled demo kmodel (written by
// fuzz_kmodel -seed_corpus) and ../shared/k210.
#include <cstring>

#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"

namespace {

using namespace npu;

// The three memories at their real sizes (main capped as the functional executor caps it).
class FuzzMemory : public k210::RuntimeMemory {
public:
    explicit FuzzMemory(const k210::Kmodel& m)
        : m_const(m.bytes.data() + m.constants_offset, m.constants_bytes)
        , m_main(m.main_mem_bytes)
        , m_kpu(kpu::kRamBytes) {}
    void read(uint32_t t, uint64_t start, void* dst, size_t n) override {
        if (n == 0) {
            return;
        }
        const uint8_t* p = t == k210::kConstMemory  ? m_const.first
                           : t == k210::kMainMemory ? m_main.data()
                                                    : m_kpu.data();
        const size_t size = t == k210::kConstMemory  ? m_const.second
                            : t == k210::kMainMemory ? m_main.size()
                                                     : m_kpu.size();
        if (start > size || n > size - start) {
            __builtin_trap();  // check_range must have refused it
        }
        std::memcpy(dst, p + start, n);
    }
    void write(uint32_t t, uint64_t start, const void* src, size_t n) override {
        if (n == 0) {
            return;
        }
        if (t == k210::kConstMemory) {
            __builtin_trap();
        }
        std::vector<uint8_t>& v = t == k210::kMainMemory ? m_main : m_kpu;
        if (start > v.size() || n > v.size() - start) {
            __builtin_trap();
        }
        std::memcpy(v.data() + start, src, n);
    }

private:
    std::pair<const uint8_t*, size_t> m_const;
    std::vector<uint8_t> m_main, m_kpu;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    k210::Kmodel m;
    try {
        m = k210::parse_kmodel(std::vector<uint8_t>(data, data + size), "fuzz");
    } catch (const sim::Error&) {
        return 0;
    }
    // Whatever parses must be safe to look at: every conv's tables lie inside the file.
    for (const k210::KpuConvLayer& c : m.convs) {
        if (c.weights_offset + c.weights_bytes > m.bytes.size()) {
            __builtin_trap();
        }
    }
    if (m.main_mem_bytes > (6u << 20) || m.constants_offset + m.constants_bytes > m.bytes.size()) {
        return 0;
    }
    FuzzMemory mem(m);
    for (size_t i = 0; i < m.layers.size(); ++i) {
        if (k210::is_kpu_layer(m.version, m.layers[i].type)) {
            continue;
        }
        try {
            k210::run_cpu_layer(m, i, mem);
        } catch (const sim::Error&) {
        }
    }
    return 0;
}
