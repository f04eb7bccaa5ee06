#include "platforms/k210/compiler/kpu_ram.h"

#include <algorithm>
#include <iterator>

namespace npu::k210::lowering {

KpuRamPlan::KpuRamPlan(uint64_t lines)
    : m_lines(lines) {
    if (lines > 0) {
        m_free[0] = lines;
    }
}

void KpuRamPlan::take(uint64_t first, uint64_t lines) {
    auto it = std::prev(m_free.upper_bound(first));  // the block containing `first`
    const uint64_t start = it->first, size = it->second;
    m_free.erase(it);
    if (first > start) {
        m_free[start] = first - start;
    }
    if (first + lines < start + size) {
        m_free[first + lines] = start + size - (first + lines);
    }
    m_in_use += lines;
    m_peak = std::max(m_peak, m_in_use);
}

void KpuRamPlan::reserve(const std::string& tensor, uint64_t first, uint64_t lines) {
    take(first, lines);
    m_live[tensor] = m_placements.size();
    m_placements.push_back({tensor, first, lines, -1, -1});
}

uint64_t KpuRamPlan::largest_free() const {
    uint64_t best = 0;
    for (const auto& [first, size] : m_free) {
        best = std::max(best, size);
    }
    return best;
}

std::optional<uint64_t> KpuRamPlan::alloc(const std::string& tensor, uint64_t lines, int layer) {
    if (lines == 0) {
        return m_next;  // nothing to hold
    }
    std::optional<uint64_t> at;
    // Never-used lines first: the free block containing m_next, from m_next on.
    auto fresh = m_free.upper_bound(m_next);
    if (fresh != m_free.begin()) {
        --fresh;
        if (fresh->first <= m_next && m_next + lines <= fresh->first + fresh->second) {
            at = m_next;
        }
    }
    if (!at) {  // best fit among the free blocks
        uint64_t best_size = 0;
        for (const auto& [first, size] : m_free) {
            if (size >= lines && (!at || size < best_size)) {
                at = first, best_size = size;
            }
        }
    }
    if (!at) {
        return std::nullopt;
    }
    take(*at, lines);
    m_next = std::max(m_next, *at + lines);
    m_live[tensor] = m_placements.size();
    m_placements.push_back({tensor, *at, lines, layer, -1});
    return at;
}

void KpuRamPlan::release(const std::string& tensor, int layer, bool moved_out) {
    const auto it = m_live.find(tensor);
    if (it == m_live.end()) {
        return;
    }
    Placement& p = m_placements[it->second];
    m_live.erase(it);
    p.last = layer;
    p.moved_out = moved_out;
    m_in_use -= p.lines;
    uint64_t first = p.first, size = p.lines;
    auto next = m_free.lower_bound(first);
    if (next != m_free.end() && next->first == first + size) {  // merge the block after
        size += next->second;
        next = m_free.erase(next);
    }
    if (next != m_free.begin()) {  // and the block before
        auto prev = std::prev(next);
        if (prev->first + prev->second == first) {
            first = prev->first, size += prev->second;
            m_free.erase(prev);
        }
    }
    m_free[first] = size;
}

}  // namespace npu::k210::lowering
