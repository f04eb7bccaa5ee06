// The whole `npusim run --functional --model` path as a fuzz entry point: any bytes are parsed as
// a kmodel; one that parses gets an input of its declared type and shape (zeros) and runs every
// layer, KPU and CPU, keeping every layer's result (--dump-all's path). Any input gives a run or
// one sim::Error, never a crash, hang or other exception. Bounded so each input takes
// milliseconds: KPU work over 2^24 MACs, inputs over 2^22 elements and CPU nodes over 2^22 taps
// are skipped or refused. Used by libFuzzer (fuzz_k210_run.cpp) and by a seeded mutation test
// in the normal suite (tests/platforms/k210/soc/test_run_mutations.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"

namespace npu::fuzz {

constexpr uint64_t kRunKpuMacs = uint64_t{1} << 24, kRunInputElements = uint64_t{1} << 22,
                   kRunCpuWork = uint64_t{1} << 22;

// Whether the model is small enough to run under the budget (its KPU layers' MACs).
inline bool k210_within_budget(const k210::Kmodel& m) {
    uint64_t macs = 0;
    for (const k210::KpuConvLayer& c : m.convs) {
        const kpu::LayerArgs& a = c.args;
        const uint64_t k = static_cast<uint64_t>(a.kernel_size());
        macs += static_cast<uint64_t>(a.out_channels()) * static_cast<uint64_t>(a.out_width()) *
                static_cast<uint64_t>(a.out_height()) * k * k *
                (a.depth_wise_layer ? 1u : static_cast<uint64_t>(a.in_channels())) * c.batches;
        if (macs > kRunKpuMacs) {
            return false;
        }
    }
    return true;
}

// Returns whether the model ran (its result in `out` when given).
inline bool k210_run(const uint8_t* data, size_t size, k210::FunctionalResult* out = nullptr) {
    k210::Kmodel m;
    try {
        m = k210::parse_kmodel(std::vector<uint8_t>(data, data + size), "fuzz.kmodel");
    } catch (const sim::Error&) {
        return false;
    }
    if (!k210_within_budget(m)) {
        return false;
    }
    try {
        const sim::Shape s = k210::model_input_shape(m);
        uint64_t n = 1;
        for (int64_t d : s) {
            n *= static_cast<uint64_t>(d);
        }
        if (n > kRunInputElements) {
            return false;
        }
        const sim::Tensor in(k210::model_input_dtype(m), s);
        const k210::ScopedCpuWorkLimit limit(kRunCpuWork);
        k210::FunctionalOptions fo;
        fo.dump_all = true;
        k210::FunctionalResult r = k210::run_functional(m, in, fo);
        if (out != nullptr) {
            *out = std::move(r);
        }
        return true;
    } catch (const sim::Error&) {
        return false;
    }
}

}  // namespace npu::fuzz
