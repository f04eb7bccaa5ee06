// A deterministic, bounded fuzz run inside the normal test suite: seeded byte mutations of valid
// inputs through every parser. The libFuzzer targets explore further; this keeps CI honest.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <stb/stb_image_write.h>

#include "tests/fuzz/fuzz_image.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mutate.h"

namespace npu::fuzz {
namespace {

TEST(FuzzSmoke, NpyReaderSurvivesMutations) {
    sim::Tensor t(sim::DType::f32, {2, 3, 4});
    const std::vector<uint8_t> seed = sim::encode_npy(t);
    std::mt19937 rng(1);
    for (int i = 0; i < 20000; ++i) {
        const auto input = mutate(seed, rng);
        npy(input.data(), input.size());
    }
}

TEST(FuzzSmoke, ConfigReaderSurvivesMutations) {
    const std::string text = R"(platform:
  name: k210
  quantum_ns: 1000
  clock_hz: 400MHz
  memories:
    - {name: sram, base_addr: 0x80000000, size_bytes: 6MiB, dmi: true, signed: -3}
    - name: ai
      base_addr: 0x80600000
      size_bytes: 2MiB
)";
    const std::vector<uint8_t> seed(text.begin(), text.end());
    std::mt19937 rng(2);
    for (int i = 0; i < 5000; ++i) {
        const auto input = mutate(seed, rng);
        config(input.data(), input.size());
    }
}

// Small images of every format whose header the readers walk (BMP rows, TGA plain and run-length
// packets, PNM, PNG, JPEG), each mutated.
TEST(FuzzSmoke, ImageReadersSurviveMutations) {
    cv::Mat m(5, 7, CV_8UC3);
    for (int i = 0; i < 5 * 7 * 3; ++i) {
        m.data[i] = static_cast<uint8_t>(i * 37);
    }
    std::vector<std::vector<uint8_t>> seeds;
    for (const char* ext : {".bmp", ".ppm", ".png", ".jpg"}) {
        std::vector<uint8_t> b;
        ASSERT_TRUE(cv::imencode(ext, m, b));
        seeds.push_back(b);
    }
    for (int rle : {0, 1}) {
        std::vector<uint8_t> tga;
        stbi_write_tga_with_rle = rle;
        stbi_write_tga_to_func(
            [](void* ctx, void* data, int n) {
                auto* v = static_cast<std::vector<uint8_t>*>(ctx);
                v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + n);
            },
            &tga, m.cols, m.rows, 3, m.data);
        seeds.push_back(tga);
    }
    stbi_write_tga_with_rle = 1;
    std::mt19937 rng(3);
    for (const std::vector<uint8_t>& seed : seeds) {
        image(seed.data(), seed.size());
        for (int i = 0; i < 2000; ++i) {
            const auto input = mutate(seed, rng);
            image(input.data(), input.size());
        }
    }
}

}  // namespace
}  // namespace npu::fuzz
