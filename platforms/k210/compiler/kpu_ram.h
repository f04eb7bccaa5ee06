// The compiler's KPU RAM plan: 64-byte lines handed to tensors when the layer that writes them is
// lowered and taken back after the last layer that reads them. A tensor goes where no tensor has
// been yet (the next never-used line) while that space holds it, so a model that fits without
// reuse keeps the placement it always had; when it does not, into the smallest free block that
// holds it (best fit; freed neighbours merged, a tie to the lowest line). Every placement is kept
// with its live range for the compile report. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace npu::k210::lowering {

class KpuRamPlan {
public:
    struct Placement {
        std::string tensor;
        uint64_t first = 0, lines = 0;
        int written = 0;         // the kmodel layer that writes it (-1: before the first)
        int last = -1;           // the last kmodel layer that may read it (-1: to the end)
        bool moved_out = false;  // freed early: later readers take it from main memory
    };

    explicit KpuRamPlan(uint64_t lines);
    // Holds [first, first + lines) for `tensor` from the start (the v3 input at the top).
    void reserve(const std::string& tensor, uint64_t first, uint64_t lines);
    // The first line for `lines` lines of `tensor`, written by kmodel layer `layer`; none when no
    // free block is large enough.
    std::optional<uint64_t> alloc(const std::string& tensor, uint64_t lines, int layer);
    // `tensor`'s lines are free after kmodel layer `layer` (no later layer reads them, or
    // `moved_out`: later readers take it from main memory).
    void release(const std::string& tensor, int layer, bool moved_out = false);
    bool holds(const std::string& tensor) const { return m_live.count(tensor) != 0; }
    // The lines `tensor` holds now (0 when it holds none).
    uint64_t lines_of(const std::string& tensor) const {
        const auto it = m_live.find(tensor);
        return it == m_live.end() ? 0 : m_placements[it->second].lines;
    }
    uint64_t in_use() const { return m_in_use; }
    uint64_t peak() const { return m_peak; }
    uint64_t largest_free() const;
    // Every tensor placed, in the order placed.
    const std::vector<Placement>& placements() const { return m_placements; }

private:
    void take(uint64_t first, uint64_t lines);  // from the free block that contains them
    uint64_t m_lines;
    std::map<uint64_t, uint64_t> m_free;   // first line -> lines, disjoint, merged
    std::map<std::string, size_t> m_live;  // tensor -> its placement
    std::vector<Placement> m_placements;
    uint64_t m_next = 0;  // the lowest line no tensor has had
    uint64_t m_in_use = 0, m_peak = 0;
};

}  // namespace npu::k210::lowering
