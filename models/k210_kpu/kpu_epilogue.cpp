#include "models/k210_kpu/kpu_epilogue.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "models/k210_kpu/kpu_arith.h"
#include "models/k210_kpu/kpu_mac.h"

namespace npu::kpu {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxTable = int64_t{1} << 20;  // entries: 1 MiB per thread at most

std::atomic<uint64_t> g_next_id{1};

// limit36 for the common case in one compare; the policy only when out of range.
inline bool limit(int64_t& v, Overflow policy) {
    if (static_cast<uint64_t>(v) - static_cast<uint64_t>(kMin36) <=
        static_cast<uint64_t>(kMax36 - kMin36)) {
        return false;
    }
    return limit36(v, policy);
}

}  // namespace

Epilogue::Epilogue(const ActTable& table, const Fidelity& fidelity, size_t max_table_entries)
    : m_id(g_next_id++)
    , m_max_table(static_cast<int64_t>(std::min<size_t>(max_table_entries, kMaxTable)))
    , m_table(table)
    , m_fidelity(fidelity) {
    m_sorted = true;
    for (size_t i = 0; i < 16; ++i) {
        if (i > 0 && table[i].x_start < table[i - 1].x_start) {
            m_sorted = false;
        }
        if (table[i].x_start == std::numeric_limits<int64_t>::min()) {
            m_sorted = false;  // x_start - 1 below would wrap
        }
        // act_shift clamps the shift to 62; 0 means no rounding (the half is never reached).
        const uint32_t s = std::min(table[i].shift, 62u);
        m_shift[i] = s;
        m_half[i] = s == 0 ? kNever : int64_t{1} << (s - 1);
        m_mask[i] = s == 0 ? 0 : (int64_t{1} << s) - 1;
    }
    // "x > s - 1" is "x >= s": the greater-equal rule compares with x_start - 1.
    const int64_t bias = fidelity.segment == SegmentRule::GreaterEqual ? 1 : 0;
    for (size_t i = 1; i < 16; ++i) {
        m_above[i - 1] = m_sorted ? table[i].x_start - bias : 0;
    }
    m_above[15] = kNever;
}

template <bool kCarry>
uint8_t Epilogue::activate_sorted(int64_t x) const {
    // The last segment whose x_start x exceeds (segment 0 if none).
    size_t s = x > m_above[7] ? 8u : 0u;
    s += x > m_above[s + 3] ? 4u : 0u;
    s += x > m_above[s + 1] ? 2u : 0u;
    s += x > m_above[s] ? 1u : 0u;
    const ActSegment& seg = m_table[s];
    const int64_t d = wrap_mul(wrap_sub(x, seg.x_start), seg.y_mul);
    int64_t r;
    if (kCarry) {
        r = act_shift(d, seg.shift, ActRounding::Carry);
    } else {  // act_shift's banker rounding without branches
        const int64_t integral = d >> m_shift[s], fractional = d & m_mask[s];
        const int64_t sign = d < 0 ? -1 : 1;
        const bool up = fractional > m_half[s] || (fractional == m_half[s] && (integral & 1) != 0);
        r = integral + (up ? sign : 0);
    }
    return static_cast<uint8_t>(std::clamp<int64_t>(wrap_add(r, seg.bias), 0, 255));
}

uint8_t Epilogue::activate_one(int64_t x) const {
    if (!m_sorted) {
        return activate(x, m_table, m_fidelity);
    }
    return m_fidelity.rounding == ActRounding::Carry ? activate_sorted<true>(x)
                                                     : activate_sorted<false>(x);
}

void Epilogue::tabulate(int64_t from, int64_t to, uint8_t* out) const {
    if (!m_sorted || m_fidelity.rounding == ActRounding::Carry) {
        for (int64_t x = from; x <= to; ++x) {
            *out++ = activate_one(x);
        }
        return;
    }
    // Segment i holds the x with m_above[i - 1] < x <= m_above[i]; within it the product
    // (x - x_start) · y_mul grows by y_mul per step (mod 2^64, as wrap_mul computes it).
    for (size_t i = 0; i < 16 && from <= to; ++i) {
        const int64_t last = std::min(to, m_above[i]);
        const ActSegment& seg = m_table[i];
        int64_t d = wrap_mul(wrap_sub(from, seg.x_start), seg.y_mul);
        const uint32_t shift = m_shift[i];
        const int64_t mask = m_mask[i], half = m_half[i];
        for (int64_t x = from; x <= last; ++x) {
            const int64_t integral = d >> shift, fractional = d & mask;
            const int64_t sign = d < 0 ? -1 : 1;
            const bool up = fractional > half || (fractional == half && (integral & 1) != 0);
            const int64_t r = wrap_add(integral + (up ? sign : 0), seg.bias);
            *out++ = static_cast<uint8_t>(std::clamp<int64_t>(r, 0, 255));
            d = wrap_add(d, seg.y_mul);
        }
        from = std::max(from, last + 1);
    }
}

bool Epilogue::cover(int64_t lo, int64_t hi, EpilogueScratch& s) const {
    const auto size = static_cast<int64_t>(s.table.size());
    const int64_t have_lo = s.lo, have_hi = s.lo + size - 1;
    if (size > 0 && lo >= have_lo && hi <= have_hi) {
        return true;
    }
    if (lo < kMin36 || hi > kMax36) {
        return false;  // beyond 36 bits: overflowed values, left to the search
    }
    int64_t new_lo = size > 0 ? std::min(lo, have_lo) : lo;
    int64_t new_hi = size > 0 ? std::max(hi, have_hi) : hi;
    if (new_hi - new_lo + 1 > m_max_table) {
        return false;
    }
    // At least double, so that a range creeping outwards costs O(final size) in all.
    const int64_t spare = std::min(size, m_max_table - (new_hi - new_lo + 1)) / 2;
    new_lo = std::max(kMin36, new_lo - spare);
    new_hi = std::min(kMax36, new_hi + spare);
    std::vector<uint8_t> table(static_cast<size_t>(new_hi - new_lo + 1));
    if (size > 0) {
        std::copy(s.table.begin(), s.table.end(), table.begin() + (have_lo - new_lo));
    }
    auto fill = [&](int64_t from, int64_t to) {  // [from, to], not yet in the table
        if (from <= to) {
            tabulate(from, to, table.data() + (from - new_lo));
        }
    };
    if (size > 0) {
        fill(new_lo, have_lo - 1);
        fill(have_hi + 1, new_hi);
    } else {
        fill(new_lo, new_hi);
    }
    s.lo = new_lo;
    s.table = std::move(table);
    return true;
}

uint64_t Epilogue::run(const int64_t* v, size_t n, const BnParam& bn, uint8_t* out,
                       EpilogueScratch& s) const {
    if (s.owner != m_id) {
        s.owner = m_id;
        s.table.clear();
    }
    uint64_t overflows = 0;
    const Overflow policy = m_fidelity.overflow;
    s.bn_out.resize(n);
    int64_t* x = s.bn_out.data();
    int64_t lo = kNever, hi = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < n;) {
        i += bn_in_range(v + i, n - i, bn.mul, bn.shift, bn.add, x + i, lo, hi);
        for (const size_t stop = std::min(n, i + 4); i < stop; ++i) {  // what it could not do
            int64_t t = v[i];
            overflows += limit(t, policy) ? 1u : 0u;
            t = wrap_add(wrap_mul(t, bn.mul) >> bn.shift, bn.add);
            overflows += limit(t, policy) ? 1u : 0u;
            x[i] = t;
            lo = std::min(lo, t), hi = std::max(hi, t);
        }
    }
    if (n > 0 && cover(lo, hi, s)) {
        const uint8_t* table = s.table.data();
        const int64_t first = s.lo;
        for (size_t i = 0; i < n; ++i) {
            out[i] = table[x[i] - first];
        }
        return overflows;
    }
    for (size_t i = 0; i < n; ++i) {
        out[i] = activate_one(x[i]);
    }
    return overflows;
}

}  // namespace npu::kpu
