// The reductions of the ONNX reference evaluator: ReduceMean, ReduceSum, ReduceMax, ReduceMin,
// ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, and ArgMax /
// ArgMin. Sums run in double and round once to float (numpy reduces float32 pairwise; a double
// accumulator is at least as close, within the node tests' rtol 1e-3).
#include <cmath>
#include <limits>

#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

// The axes a reduction runs over (sorted, each once): its `axes` attribute, or from opset 13 on
// for ReduceSum its second input; none means every axis, or none at all with
// noop_with_empty_axes. Also the output shape, with or without the reduced axes.
struct Reduction {
    std::vector<bool> reduced;  // per input axis
    Shape out;                  // keepdims: the input's rank
    bool noop = false;          // noop_with_empty_axes and no axes: the input as it is
};

Reduction reduction_of(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const size_t rank = x.shape.size();
    Shape axes = c.n.get_ints("axes", {});
    if (c.n.op_type == "ReduceSum" && opset >= 13) {
        axes = c.has(1) ? as_ints(c.x(1)) : Shape{};
    }
    Reduction r;
    r.reduced.assign(rank, axes.empty());
    if (axes.empty() && c.n.get_int("noop_with_empty_axes", 0) != 0) {
        r.reduced.assign(rank, false);
        r.noop = true;
    }
    for (int64_t a : axes) {
        const auto i = static_cast<size_t>(norm_axis(c.n, a, rank));
        if (r.reduced[i]) {
            fail(c.n, fmt::format("axis {} is listed twice", a));
        }
        r.reduced[i] = true;
    }
    const bool keep = c.n.get_int("keepdims", 1) != 0;
    for (size_t i = 0; i < rank; ++i) {
        if (!r.reduced[i]) {
            r.out.push_back(x.shape[i]);
        } else if (keep) {
            r.out.push_back(1);
        }
    }
    return r;
}

// For every input element, the index of the output element it reduces into.
std::vector<size_t> output_index(const Shape& in, const std::vector<bool>& reduced) {
    Shape kept(in.size(), 1);
    for (size_t i = 0; i < in.size(); ++i) {
        kept[i] = reduced[i] ? 1 : in[i];
    }
    const Shape ks = strides_of(kept);
    std::vector<size_t> idx(numel(in));
    Shape pos(in.size(), 0);
    for (size_t e = 0; e < idx.size(); ++e) {
        size_t o = 0;
        for (size_t i = 0; i < in.size(); ++i) {
            o += reduced[i] ? 0 : static_cast<size_t>(pos[i] * ks[i]);
        }
        idx[e] = o;
        for (size_t i = in.size(); i-- > 0;) {  // the next position, last axis fastest
            if (++pos[i] < in[i]) {
                break;
            }
            pos[i] = 0;
        }
    }
    return idx;
}

struct Reducer {
    double init;
    double (*step)(double acc, double v);
    double (*finish)(double acc, double count);
};

double add(double a, double v) {
    return a + v;
}
double same(double a, double /*count*/) {
    return a;
}

// Each reduction: its start, its step over one element, its last step (given the count).
const std::pair<const char*, Reducer> kReducers[] = {
    {"ReduceSum", {0, add, same}},
    {"ReduceMean",
     {0, add,
      [](double a, double k) {
          return a / k;
      }}},
    {"ReduceMax",
     {-std::numeric_limits<double>::infinity(),
      [](double a, double v) { return std::isnan(v) || v > a ? v : a; }, same}},
    {"ReduceMin",
     {std::numeric_limits<double>::infinity(),
      [](double a, double v) { return std::isnan(v) || v < a ? v : a; }, same}},
    {"ReduceProd", {1, [](double a, double v) { return a * v; }, same}},
    {"ReduceL1", {0, [](double a, double v) { return a + std::abs(v); }, same}},
    {"ReduceL2",
     {0, [](double a, double v) { return a + v * v; },
      [](double a, double) {
          return std::sqrt(a);
      }}},
    {"ReduceLogSum",
     {0, add,
      [](double a, double) {
          return std::log(a);
      }}},
    {"ReduceLogSumExp",
     {0, [](double a, double v) { return a + std::exp(v); },
      [](double a, double) {
          return std::log(a);
      }}},
    {"ReduceSumSquare", {0, [](double a, double v) { return a + v * v; }, same}},
};

const Reducer& reducer_of(const Node& n) {
    for (const auto& [name, r] : kReducers) {
        if (n.op_type == name) {
            return r;
        }
    }
    fail(n, "is not a reduction");
}

}  // namespace

Outputs reduce(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const Reduction r = reduction_of(c, opset);
    if (r.noop) {
        return one(reshaped(x, x.shape));
    }
    const Reducer& f = reducer_of(c.n);
    check_work(c.n, numel(x.shape), 1);
    const size_t n_out = checked_numel(c.n, r.out);
    std::vector<double> acc(n_out, f.init);
    const std::vector<size_t> idx = output_index(x.shape, r.reduced);
    std::vector<float> scratch;
    const std::vector<float>& xs = floats_of(x, scratch);
    for (size_t e = 0; e < idx.size(); ++e) {
        acc[idx[e]] = f.step(acc[idx[e]], static_cast<double>(xs[e]));
    }
    const double count =
        n_out == 0 ? 0 : static_cast<double>(idx.size()) / static_cast<double>(n_out);
    if (x.is_int()) {
        std::vector<int64_t> y(n_out);
        for (size_t o = 0; o < n_out; ++o) {
            y[o] = static_cast<int64_t>(f.finish(acc[o], count));
        }
        Value v = Value::ints(r.out, std::move(y));
        v.onnx_type = x.onnx_type;
        return one(std::move(v));
    }
    std::vector<float> y(n_out);
    for (size_t o = 0; o < n_out; ++o) {
        y[o] = static_cast<float>(f.finish(acc[o], count));
    }
    return one(Value::floats(r.out, std::move(y)));
}

Outputs arg_extreme(const Ctx& c, bool max) {
    const Value& x = c.x(0);
    const size_t rank = x.shape.size();
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 0), rank));
    const bool keep = c.n.get_int("keepdims", 1) != 0;
    const bool last = c.n.get_int("select_last_index", 0) != 0;
    Shape out;
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < rank; ++i) {
        if (i != axis) {
            out.push_back(x.shape[i]);
        } else if (keep) {
            out.push_back(1);
        }
        (i < axis ? outer : inner) *= i == axis ? 1 : x.shape[i];
    }
    const int64_t len = x.shape[axis];
    if (len == 0) {
        fail(c.n, fmt::format("axis {} has no elements to choose from", axis));
    }
    check_work(c.n, numel(x.shape), 1);
    std::vector<float> scratch;
    const std::vector<float>& xs = floats_of(x, scratch);
    std::vector<int64_t> y(checked_numel(c.n, out));
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
            int64_t best = 0;
            for (int64_t k = 1; k < len; ++k) {
                const float v = xs[static_cast<size_t>((o * len + k) * inner + in)];
                const float b = xs[static_cast<size_t>((o * len + best) * inner + in)];
                const bool better = max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
                best = better ? k : best;
            }
            y[static_cast<size_t>(o * inner + in)] = best;
        }
    }
    return one(Value::ints(out, std::move(y)));
}

}  // namespace npu::onnx::detail
