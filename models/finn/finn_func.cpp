#include "models/finn/finn_func.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::finn {

int64_t threshold_count(int64_t v, const std::vector<int64_t>& row) {
    int64_t n = 0;
    for (int64_t t : row) {
        n += t <= v ? 1 : 0;
    }
    return n;
}

int64_t activation(int64_t v, const std::vector<int64_t>& row, int64_t act_val, bool bipolar_out) {
    const int64_t n = threshold_count(v, row);
    return bipolar_out ? 2 * n - 1 : act_val + n;
}

std::vector<int64_t> thresholding(const std::vector<int64_t>& x, size_t channels,
                                  const Thresholds& t, int64_t act_val, bool bipolar_out) {
    if (channels == 0 || x.size() % channels != 0 || t.empty() ||
        (t.size() != 1 && t.size() != channels)) {
        throw sim::Error(fmt::format("thresholding: {} values, {} channels, {} threshold rows",
                                     x.size(), channels, t.size()));
    }
    std::vector<int64_t> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        y[i] = activation(x[i], threshold_row(t, i % channels), act_val, bipolar_out);
    }
    return y;
}

namespace {
// The weight problems of a layer of `count` weights of type `t` (at most a few messages).
void check_weights(const std::vector<int64_t>& w, size_t count, const DataType& t,
                   const char* shape, std::vector<std::string>& e) {
    if (w.size() != count) {
        e.push_back(fmt::format("weights: {} values, expected {} = {}", w.size(), shape, count));
    }
    for (size_t i = 0; i < w.size() && e.size() < 8; ++i) {
        if (!t.allowed(w[i])) {
            e.push_back(fmt::format("weight {} is {}: not a {} value", i, w[i], t.name()));
        }
    }
}
}  // namespace

std::vector<std::string> check(const Mvau& m) {
    std::vector<std::string> e;
    if (m.mw == 0 || m.mh == 0 || m.pe == 0 || m.simd == 0) {
        e.push_back(fmt::format("MW {}, MH {}, PE {}, SIMD {}: each must be at least 1", m.mw, m.mh,
                                m.pe, m.simd));
        return e;
    }
    if (m.mh % m.pe != 0) {
        e.push_back(fmt::format("MH % PE == 0: MH {} is not a multiple of PE {}", m.mh, m.pe));
    }
    if (m.mw % m.simd != 0) {
        e.push_back(
            fmt::format("MW % SIMD == 0: MW {} is not a multiple of SIMD {}", m.mw, m.simd));
    }
    check_weights(m.weights, size_t{m.mw} * m.mh, m.weight, "MH x MW", e);
    if (!m.thresholds.empty() && m.thresholds.size() != 1 && m.thresholds.size() != m.mh) {
        e.push_back(
            fmt::format("thresholds: {} rows, expected 1 or MH = {}", m.thresholds.size(), m.mh));
    }
    return e;
}

namespace {
// The accumulator as a register of type `t` holds it (two's complement wrap-around).
int64_t wrap(const std::optional<DataType>& t, int64_t acc) {
    return t ? t->decode(t->encode(acc)) : acc;
}

// The accumulator of output `o` through its thresholds (none: the accumulator itself).
int64_t activate(const Mvau& m, unsigned o, int64_t acc) {
    if (m.thresholds.empty()) {
        return acc;
    }
    return activation(acc, threshold_row(m.thresholds, o), m.act_val,
                      m.out.kind() == DataType::Kind::Bipolar);
}

bool xnor_mode(const Mvau& m) {
    return m.binary_xnor ||
           (m.in.kind() == DataType::Kind::Bipolar && m.weight.kind() == DataType::Kind::Bipolar);
}
}  // namespace

std::vector<int64_t> mvau(const Mvau& m, const std::vector<int64_t>& x) {
    const std::vector<std::string> problems = check(m);
    if (!problems.empty()) {
        throw sim::Error("MVAU: " + problems.front());
    }
    if (x.size() % m.mw != 0) {
        throw sim::Error(
            fmt::format("MVAU: {} input values are not vectors of MW = {}", x.size(), m.mw));
    }
    const bool xnor = xnor_mode(m);
    const size_t vectors = x.size() / m.mw;
    std::vector<int64_t> y(vectors * m.mh);
    for (size_t v = 0; v < vectors; ++v) {
        const int64_t* in = x.data() + v * m.mw;
        for (unsigned o = 0; o < m.mh; ++o) {
            const int64_t* w = m.weights.data() + size_t{o} * m.mw;
            int64_t acc = 0;
            for (unsigned i = 0; i < m.mw; ++i) {
                // XNOR: agreement of the two bits (binary 0/1, or bipolar -1/+1)
                acc += xnor ? (in[i] == w[i] ? 1 : 0) : in[i] * w[i];
            }
            y[v * m.mh + o] = activate(m, o, wrap(m.acc, acc));
        }
    }
    return y;
}

std::vector<std::string> check(const Vvau& v) {
    std::vector<std::string> e;
    if (v.channels == 0 || v.k() == 0 || v.pe == 0 || v.simd == 0) {
        e.push_back(
            fmt::format("Channels {}, Kernel {}x{}, PE {}, SIMD {}: each must be at least 1",
                        v.channels, v.kh, v.kw, v.pe, v.simd));
        return e;
    }
    if (v.channels % v.pe != 0) {
        e.push_back(fmt::format("Channels % PE == 0: Channels {} is not a multiple of PE {}",
                                v.channels, v.pe));
    }
    if (v.k() % v.simd != 0) {
        e.push_back(
            fmt::format("K_h·K_w % SIMD == 0: Kernel {}x{} = {} is not a multiple of "
                        "SIMD {}",
                        v.kh, v.kw, v.k(), v.simd));
    }
    check_weights(v.weights, size_t{v.channels} * v.k(), v.weight, "Channels x K_h·K_w", e);
    if (!v.thresholds.empty() && v.thresholds.size() != 1 && v.thresholds.size() != v.channels) {
        e.push_back(fmt::format("thresholds: {} rows, expected 1 or Channels = {}",
                                v.thresholds.size(), v.channels));
    }
    return e;
}

std::vector<int64_t> vvau(const Vvau& v, const std::vector<int64_t>& x) {
    const std::vector<std::string> problems = check(v);
    if (!problems.empty()) {
        throw sim::Error("VVAU: " + problems.front());
    }
    const size_t pixel = size_t{v.channels} * v.k();
    if (x.size() % pixel != 0) {
        throw sim::Error(fmt::format("VVAU: {} input values are not pixels of Channels x K = {}",
                                     x.size(), pixel));
    }
    std::vector<int64_t> y;
    y.reserve(x.size() / v.k());
    const size_t block = size_t{v.k()} * v.pe;
    for (size_t p = 0; p < x.size(); p += pixel) {
        for (unsigned f = 0; f < v.channels / v.pe; ++f) {
            const std::vector<int64_t> o = vvau_fold(v, x.data() + p + f * block, f);
            y.insert(y.end(), o.begin(), o.end());
        }
    }
    return y;
}

std::vector<int64_t> vvau_fold(const Vvau& v, const int64_t* block, unsigned fold) {
    std::vector<int64_t> y(v.pe);
    for (unsigned lane = 0; lane < v.pe; ++lane) {
        const unsigned c = fold * v.pe + lane;
        int64_t acc = 0;
        for (unsigned k = 0; k < v.k(); ++k) {
            acc += block[size_t{k} * v.pe + lane] * v.weights[size_t{c} * v.k() + k];
        }
        acc = wrap(v.acc, acc);
        y[lane] = v.thresholds.empty() ? acc
                                       : activation(acc, threshold_row(v.thresholds, c), v.act_val,
                                                    v.out.kind() == DataType::Kind::Bipolar);
    }
    return y;
}

std::vector<int64_t> label_select(const std::vector<int64_t>& x, size_t labels, size_t k) {
    if (labels == 0 || k == 0 || k > labels || x.size() % labels != 0) {
        throw sim::Error(
            fmt::format("LabelSelect: {} values in vectors of Labels {}, K {} (K "
                        "must be 1..Labels)",
                        x.size(), labels, k));
    }
    std::vector<int64_t> y;
    std::vector<size_t> order(labels);
    for (size_t v = 0; v < x.size(); v += labels) {
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return x[v + a] > x[v + b]; });
        y.insert(y.end(), order.begin(), order.begin() + static_cast<long>(k));
    }
    return y;
}

std::vector<std::string> check(const ThresholdingLayer& l) {
    std::vector<std::string> e;
    if (l.channels == 0 || l.pe == 0 || l.channels % l.pe != 0) {
        e.push_back(fmt::format("NumChannels % PE == 0: NumChannels {} is not a multiple of PE {}",
                                l.channels, l.pe));
    }
    if (l.thresholds.empty() || (l.thresholds.size() != 1 && l.thresholds.size() != l.channels)) {
        e.push_back(fmt::format("thresholds: {} rows, expected 1 or NumChannels = {}",
                                l.thresholds.size(), l.channels));
    }
    return e;
}

std::vector<std::string> check(const DwcLayer& l) {
    std::vector<std::string> e;
    if (l.in_elements == 0 || l.out_elements == 0 || l.frame_elements == 0 ||
        l.frame_elements % l.in_elements != 0 || l.frame_elements % l.out_elements != 0) {
        e.push_back(
            fmt::format("a frame of {} elements is not a whole number of input words of "
                        "{} and output words of {}",
                        l.frame_elements, l.in_elements, l.out_elements));
    }
    return e;
}

std::vector<std::string> check(const LabelSelectLayer& l) {
    std::vector<std::string> e;
    if (l.labels == 0 || l.pe == 0 || l.labels % l.pe != 0) {
        e.push_back(
            fmt::format("Labels % PE == 0: Labels {} is not a multiple of PE {}", l.labels, l.pe));
    }
    if (l.k == 0 || l.k > l.labels) {
        e.push_back(fmt::format("K {} must be 1..Labels ({})", l.k, l.labels));
    }
    return e;
}

}  // namespace npu::finn
