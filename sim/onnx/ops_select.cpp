// The ONNX reference evaluator's selecting ops, whose output size depends on the data — TopK,
// NonZero, NonMaxSuppression (a detector's last steps) — and LayerNormalization (the ONNX
// operator specification; eval_detail.h). Pure C++.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

// The first value of an optional integer scalar input, or `fallback`.
int64_t int_input(const Ctx& c, size_t i, int64_t fallback) {
    if (!c.has(i)) {
        return fallback;
    }
    const std::vector<int64_t> v = as_ints(c.x(i));
    return v.empty() ? fallback : v[0];
}

float float_input(const Ctx& c, size_t i, float fallback) {
    if (!c.has(i)) {
        return fallback;
    }
    const std::vector<float> v = as_floats(c.x(i));
    return v.empty() ? fallback : v[0];
}

}  // namespace

// The k largest (or smallest) values along `axis` and their indices; equal values in index
// order (the specification's tie rule).
Outputs top_k(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 1, 8, "the input");
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", -1), x.shape.size()));
    const int64_t k = opset >= 10 ? int_input(c, 1, -1) : c.n.get_int("k", -1);
    if (k < 0 || k > x.shape[axis]) {
        fail(c.n, fmt::format("k = {} for an axis of {}", k, x.shape[axis]));
    }
    const bool largest = c.n.get_int("largest", 1) != 0;
    Shape out = x.shape;
    out[axis] = k;
    const size_t n = checked_numel(c.n, out);
    const std::vector<float> xf = as_floats(x);
    const auto len = static_cast<size_t>(x.shape[axis]);
    size_t inner = 1;
    for (size_t a = axis + 1; a < x.shape.size(); ++a) {
        inner *= static_cast<size_t>(x.shape[a]);
    }
    const size_t outer = len == 0 ? 0 : xf.size() / (len * inner);
    Value values;
    values.kind = x.kind, values.onnx_type = x.onnx_type, values.shape = out;
    x.is_int() ? values.i.resize(n) : values.f.resize(n);
    Value indices = Value::ints(out, std::vector<int64_t>(n));
    std::vector<size_t> order(len);
    for (size_t o = 0; o < outer; ++o) {
        for (size_t in = 0; in < inner; ++in) {
            const auto at = [&](size_t j) {
                return (o * len + j) * inner + in;
            };
            std::iota(order.begin(), order.end(), size_t{0});
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
                return largest ? xf[at(a)] > xf[at(b)] : xf[at(a)] < xf[at(b)];
            });
            for (size_t j = 0; j < static_cast<size_t>(k); ++j) {
                const size_t dst = (o * static_cast<size_t>(k) + j) * inner + in;
                x.is_int() ? void(values.i[dst] = x.i[at(order[j])])
                           : void(values.f[dst] = xf[at(order[j])]);
                indices.i[dst] = static_cast<int64_t>(order[j]);
            }
        }
    }
    Outputs r;
    r.push_back(std::move(values));
    r.push_back(std::move(indices));
    return r;
}

// The indices of the non-zero elements, (rank, count), in row-major order.
Outputs non_zero(const Ctx& c) {
    const Value& x = c.x(0);
    const Shape st = strides_of(x.shape);
    std::vector<size_t> hits;
    const size_t n = numel(x.shape);
    for (size_t k = 0; k < n; ++k) {
        if (x.is_int() ? x.i[k] != 0 : x.f[k] != 0.0f) {
            hits.push_back(k);
        }
    }
    const size_t rank = x.shape.size();
    std::vector<int64_t> out(rank * hits.size());
    for (size_t h = 0; h < hits.size(); ++h) {
        size_t rest = hits[h];
        for (size_t a = 0; a < rank; ++a) {
            out[a * hits.size() + h] = static_cast<int64_t>(rest / static_cast<size_t>(st[a]));
            rest %= static_cast<size_t>(st[a]);
        }
    }
    return one(Value::ints({static_cast<int64_t>(rank), static_cast<int64_t>(hits.size())},
                           std::move(out)));
}

namespace {

// A box as (y1, x1, y2, x2) with y1 ≤ y2, x1 ≤ x2, from corners in any order or (by
// center_point_box) centre and size.
std::array<float, 4> corners(const float* b, bool center) {
    if (center) {
        return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    }
    return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Intersection over union; 0 when either box has no area.
float iou(const std::array<float, 4>& a, const std::array<float, 4>& b) {
    const float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) {
        return 0;
    }
    const float h = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    const float w = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    const float inter = h * w;
    return inter / (area_a + area_b - inter);
}

}  // namespace

// Per batch and class: the boxes whose score is above score_threshold, highest first (equal
// scores in box order), each kept unless its IoU with a box kept before exceeds iou_threshold,
// at most max_output_boxes_per_class; (batch, class, box) rows.
Outputs non_max_suppression(const Ctx& c) {
    const Value &boxes = c.x(0), &scores = c.x(1);
    need_rank(c.n, boxes, 3, 3, "boxes");
    need_rank(c.n, scores, 3, 3, "scores");
    const int64_t batches = boxes.shape[0], count = boxes.shape[1], classes = scores.shape[1];
    if (boxes.shape[2] != 4 || scores.shape[0] != batches || scores.shape[2] != count) {
        fail(c.n, fmt::format("boxes {} and scores {}: expected (B, N, 4) and (B, C, N)",
                              shape_str(boxes.shape), shape_str(scores.shape)));
    }
    const int64_t max_out = int_input(c, 2, 0);
    const float iou_max = float_input(c, 3, 0.0f);
    const bool has_min = c.has(4);
    const float score_min = float_input(c, 4, 0.0f);
    const bool center = c.n.get_int("center_point_box", 0) != 0;
    // Each candidate is compared with up to max_out kept boxes: a hostile size fails, not hangs.
    check_work(c.n, static_cast<size_t>(batches * classes * count),
               static_cast<uint64_t>(std::clamp<int64_t>(max_out, 1, std::max<int64_t>(count, 1))));
    const std::vector<float> bf = as_floats(boxes), sf = as_floats(scores);
    std::vector<int64_t> rows;
    for (int64_t b = 0; b < batches; ++b) {
        std::vector<std::array<float, 4>> box(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
            box[static_cast<size_t>(i)] =
                corners(bf.data() + static_cast<size_t>((b * count + i) * 4), center);
        }
        for (int64_t cl = 0; cl < classes; ++cl) {
            const float* s = sf.data() + static_cast<size_t>((b * classes + cl) * count);
            std::vector<int64_t> cand;
            for (int64_t i = 0; i < count; ++i) {
                if (!has_min || s[i] > score_min) {
                    cand.push_back(i);
                }
            }
            std::stable_sort(cand.begin(), cand.end(),
                             [&](int64_t x, int64_t y) { return s[x] > s[y]; });
            std::vector<int64_t> kept;
            for (int64_t i : cand) {
                if (static_cast<int64_t>(kept.size()) >= max_out) {
                    break;
                }
                const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
                    return iou(box[static_cast<size_t>(k)], box[static_cast<size_t>(i)]) > iou_max;
                });
                if (!suppressed) {
                    kept.push_back(i);
                    rows.insert(rows.end(), {b, cl, i});
                }
            }
        }
    }
    const auto n = static_cast<int64_t>(rows.size() / 3);
    return one(Value::ints({n, 3}, std::move(rows)));
}

// (x − mean) / sqrt(var + ε) · scale + B over the axes from `axis` on; outputs Y, then Mean and
// InvStdDev (X's shape with those axes 1) when the node asks for them. Sums in double.
Outputs layer_norm(const Ctx& c) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 1, 8, "the input");
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", -1), x.shape.size()));
    size_t inner = 1;
    for (size_t a = axis; a < x.shape.size(); ++a) {
        inner *= static_cast<size_t>(x.shape[a]);
    }
    const std::vector<float> xf = as_floats(x), s = as_floats(c.x(1));
    const std::vector<float> b = c.has(2) ? as_floats(c.x(2)) : std::vector<float>();
    const Shape bs = c.has(2) ? c.x(2).shape : Shape{};
    const std::vector<size_t> s_at = broadcast_offsets(
        c.x(1).shape, Shape(x.shape.begin() + static_cast<std::ptrdiff_t>(axis), x.shape.end()));
    const std::vector<size_t> b_at =
        b.empty() ? std::vector<size_t>()
                  : broadcast_offsets(bs, Shape(x.shape.begin() + static_cast<std::ptrdiff_t>(axis),
                                                x.shape.end()));
    const double eps = c.n.get_float("epsilon", 1e-5f);
    const size_t outer = inner == 0 ? 0 : xf.size() / inner;
    Shape stat = x.shape;
    std::fill(stat.begin() + static_cast<std::ptrdiff_t>(axis), stat.end(), 1);
    Value y = Value::floats(x.shape, std::vector<float>(xf.size()));
    Value mean_v = Value::floats(stat, std::vector<float>(outer));
    Value inv_v = Value::floats(stat, std::vector<float>(outer));
    for (size_t o = 0; o < outer; ++o) {
        const float* v = xf.data() + o * inner;
        const auto [mean, inv] = moments(v, inner, eps);
        for (size_t k = 0; k < inner; ++k) {
            const double bias = b.empty() ? 0.0 : static_cast<double>(b[b_at[k]]);
            y.f[o * inner + k] = static_cast<float>(
                (static_cast<double>(v[k]) - mean) * inv * static_cast<double>(s[s_at[k]]) + bias);
        }
        mean_v.f[o] = static_cast<float>(mean);
        inv_v.f[o] = static_cast<float>(inv);
    }
    Outputs r;
    r.push_back(std::move(y));
    r.push_back(std::move(mean_v));
    r.push_back(std::move(inv_v));
    r.resize(std::max<size_t>(1, std::min<size_t>(3, c.n.outputs.size())));
    return r;
}

}  // namespace npu::onnx::detail
