// KPU RAM too small even with reuse: a map that stays alive across two layers is moved to main
// memory (its layer writes it out) and uploaded again for its next KPU reader. Worked by hand at
// 240x320 (1,200 lines a channel): A = conv(x) 12 ch (14,400 lines), B = conv(A) 12 ch (14,400),
// C = conv(B) 4 ch (4,800) needs lines while A (read again by D) and B (C's input) hold 28,800
// and only 3,968 are free: A goes out; D = conv(A) 4 ch reads it uploaded; y = C + D.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/onnx/evaluator.h"
#include "tests/platforms/k210/compiler/net.h"

namespace npu::test {
namespace {

TEST(K210Compiler, ALongLivedMapMovesToMainMemoryWhenKpuRamIsFull) {
    Net n({1, 3, 240, 320});
    n.conv("A", 3, 12, 3);
    n.conv("B", 12, 12, 3);
    n.conv("C", 12, 4, 3);
    const std::string c_out = n.last;
    n.last = "A_out";
    n.conv("D", 12, 4, 3);
    n.node("Add", "y", {c_out});
    n.finish();
    k210::CompileOptions o;
    o.calibration = n.samples(2);
    o.model_name = "m.onnx";
    const k210::CompiledModel cm = k210::compile_k210(n.g, o);
    bool moved = false;
    for (const k210::KpuPlacement& p : cm.kpu_placements) {
        if (p.tensor == "A_out" && p.moved_out) {
            moved = true;
            EXPECT_EQ(p.lines, 14400u);
        }
    }
    EXPECT_TRUE(moved) << k210::compile_report(cm);
    EXPECT_LE(cm.kpu_lines, 32768u);
    // The kmodel computes what the float model does (one sample, the functional runtime).
    const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "m.kmodel");
    const auto s = n.samples(1).at(0);
    const std::vector<float> ref = onnx::evaluate(n.g, s).at(n.last).f;
    sim::Tensor in(sim::DType::u8, sim::Shape(cm.input_shape.begin(), cm.input_shape.end()));
    for (size_t k = 0; k < in.numel(); ++k) {
        in.data<uint8_t>()[k] = cm.input_q.quantize(s.at("x").f[k]);
    }
    const k210::FunctionalResult r = k210::run_functional(km, in);
    const float* y = r.outputs.at(0).data<float>();
    double dot = 0, yy = 0, rr = 0;
    for (size_t k = 0; k < ref.size(); ++k) {
        const auto a = static_cast<double>(y[k]), b = static_cast<double>(ref[k]);
        dot += a * b, yy += a * a, rr += b * b;
    }
    const double cosine = dot / std::sqrt(yy * rr);
    std::printf("moved-out map: cosine %.6f, KPU RAM peak %u lines\n", cosine, cm.kpu_lines);
    EXPECT_GT(cosine, 0.999);
}

// Two maps could go; the cheaper one does. v4, 8 channels each (9,600 lines): A = conv(x) is
// also read by a CPU global pool, so its layer already writes it to main memory; F = conv(A) has
// no copy there. B = conv(F) brings the held lines to 28,800; C = conv(B) needs 4,800 of the
// 3,968 free (C, D and E are outputs of their own). Moving A costs its upload again (CpuModel
// kpu_upload 26.171 per byte); moving F also its read-back (33.894 per byte) — so A goes, although
// F's next reader (E) comes after A's (D), which is what the farthest-next-use rule alone would
// pick.
TEST(K210Compiler, TheCheaperMapMovesOut) {
    Net n({1, 3, 240, 320});
    n.conv("A", 3, 8, 3);
    n.node("GlobalAveragePool", "g");
    const std::string g = n.last;
    n.last = "A_out";
    n.conv("F", 8, 8, 3);
    n.conv("B", 8, 8, 3);
    n.conv("C", 8, 4, 3);
    n.finish();
    n.last = "A_out";
    n.conv("D", 8, 1, 3);
    n.finish();
    n.last = "F_out";
    n.conv("E", 8, 1, 3);
    n.finish();
    n.g.outputs.push_back({g, 1, {}});
    k210::CompileOptions o;
    o.calibration = n.samples(2);
    o.model_name = "m.onnx";
    o.kmodel_version = 4;
    const k210::CompiledModel cm = k210::compile_k210(n.g, o);
    std::map<std::string, bool> moved;
    for (const k210::KpuPlacement& p : cm.kpu_placements) {
        moved[p.tensor] = moved[p.tensor] || p.moved_out;
    }
    EXPECT_TRUE(moved["A_out"]) << k210::compile_report(cm);
    EXPECT_FALSE(moved["F_out"]) << k210::compile_report(cm);
    EXPECT_LE(cm.kpu_lines, 32768u);
}

}  // namespace
}  // namespace npu::test
