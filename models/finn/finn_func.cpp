#include "models/finn/finn_func.h"

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
    if (m.weights.size() != size_t{m.mw} * m.mh) {
        e.push_back(fmt::format("weights: {} values, expected MH x MW = {}", m.weights.size(),
                                size_t{m.mw} * m.mh));
    }
    for (size_t i = 0; i < m.weights.size() && e.size() < 8; ++i) {
        if (!m.weight.allowed(m.weights[i])) {
            e.push_back(
                fmt::format("weight {} is {}: not a {} value", i, m.weights[i], m.weight.name()));
        }
    }
    if (!m.thresholds.empty() && m.thresholds.size() != 1 && m.thresholds.size() != m.mh) {
        e.push_back(
            fmt::format("thresholds: {} rows, expected 1 or MH = {}", m.thresholds.size(), m.mh));
    }
    return e;
}

namespace {
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
            y[v * m.mh + o] = activate(m, o, acc);
        }
    }
    return y;
}

}  // namespace npu::finn
