// The Kendryte demos' region layer (face_detect/region_layer.c, kpu/region_layer.c: the same
// code), written again from its formulas for the camera-demo tests: sigmoid on x, y and the
// objectness, softmax over the classes, boxes from the anchors, objectness x class probability
// kept above the threshold, non-maximum suppression per class in descending probability, and the
// corners in the 320 x 240 image as the firmware's uint32 (a negative one as 0: fcvt.wu.s). And
// the AI buffer the DVP writes for a photo.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "sim/core/image.h"

namespace npu::test {

struct Detection {
    std::array<uint32_t, 4> corners;  // x1, y1, x2, y2
    unsigned cls;
    float prob;
};

// `out`: the model's output (anchors x (5 + classes), h, w) as floats.
inline std::vector<Detection> region_layer(const float* out, int w, int h, int classes,
                                           const std::vector<float>& anchor, float threshold,
                                           float nms) {
    const int wh = w * h, anchors = static_cast<int>(anchor.size() / 2);
    const auto sig = [](float v) {
        return 1.f / (1.f + std::exp(-v));
    };
    struct Box {
        float x, y, bw, bh;
    };
    std::vector<Box> boxes(static_cast<size_t>(anchors * wh));
    std::vector<std::vector<float>> probs(boxes.size(),
                                          std::vector<float>(static_cast<size_t>(classes)));
    for (int i = 0; i < wh; ++i) {
        for (int n = 0; n < anchors; ++n) {
            const auto entry = [&](int e) {
                return out[(n * (classes + 5) + e) * wh + i];
            };
            const size_t index = static_cast<size_t>(n * wh + i);
            boxes[index] = {
                (static_cast<float>(i % w) + sig(entry(0))) / static_cast<float>(w),
                (static_cast<float>(i / w) + sig(entry(1))) / static_cast<float>(h),
                std::exp(entry(2)) * anchor[2 * static_cast<size_t>(n)] / static_cast<float>(w),
                std::exp(entry(3)) * anchor[2 * static_cast<size_t>(n) + 1] /
                    static_cast<float>(h)};
            const float scale = sig(entry(4));
            float largest = entry(5), sum = 0;
            for (int j = 0; j < classes; ++j) {
                largest = std::max(largest, entry(5 + j));
            }
            for (int j = 0; j < classes; ++j) {
                sum += std::exp(entry(5 + j) - largest);
            }
            for (int j = 0; j < classes; ++j) {
                const float p = scale * (std::exp(entry(5 + j) - largest) / sum);
                probs[index][static_cast<size_t>(j)] = p > threshold ? p : 0;
            }
        }
    }
    const auto iou = [](const Box& a, const Box& b) {
        const auto overlap = [](float x1, float w1, float x2, float w2) {
            return std::min(x1 + w1 / 2, x2 + w2 / 2) - std::max(x1 - w1 / 2, x2 - w2 / 2);
        };
        const float ow = overlap(a.x, a.bw, b.x, b.bw), oh = overlap(a.y, a.bh, b.y, b.bh);
        const float inter = ow < 0 || oh < 0 ? 0 : ow * oh;
        return inter / (a.bw * a.bh + b.bw * b.bh - inter);
    };
    for (size_t k = 0; k < static_cast<size_t>(classes); ++k) {
        std::vector<size_t> order(boxes.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return probs[a][k] > probs[b][k]; });
        for (size_t i = 0; i < order.size(); ++i) {
            if (probs[order[i]][k] == 0) {
                continue;
            }
            for (size_t j = i + 1; j < order.size(); ++j) {
                if (iou(boxes[order[i]], boxes[order[j]]) > nms) {
                    probs[order[j]][k] = 0;
                }
            }
        }
    }
    const auto u32 = [](float v) {
        return v <= 0 ? 0u : static_cast<uint32_t>(v);
    };
    std::vector<Detection> found;
    for (size_t i = 0; i < boxes.size(); ++i) {
        const auto best = std::max_element(probs[i].begin(), probs[i].end());
        if (*best > threshold) {
            const Box& b = boxes[i];
            found.push_back({{u32(b.x * 320 - b.bw * 320 / 2), u32(b.y * 240 - b.bh * 240 / 2),
                              u32(b.x * 320 + b.bw * 320 / 2), u32(b.y * 240 + b.bh * 240 / 2)},
                             static_cast<unsigned>(best - probs[i].begin()),
                             *best});
        }
    }
    return found;
}

// The AI buffer the DVP writes for `photo`: resized to 320 x 240 (INTER_LINEAR), RGB565, widened
// back by repeating the top bits, planar: also the photo's pixels as the LCD shows them.
inline sim::Tensor ai_buffer(const std::string& photo) {
    sim::Tensor t = sim::resize_linear(sim::read_image(photo), 240, 320);
    uint8_t* p = t.data<uint8_t>();
    const unsigned keep[3] = {5, 6, 5};
    for (size_t c = 0; c < 3; ++c) {
        for (size_t i = 0; i < 320 * 240; ++i) {
            const unsigned v = unsigned{p[c * 320 * 240 + i]} >> (8 - keep[c]);
            p[c * 320 * 240 + i] =
                static_cast<uint8_t>((v << (8 - keep[c])) | (v >> (2 * keep[c] - 8)));
        }
    }
    return t;
}

}  // namespace npu::test
