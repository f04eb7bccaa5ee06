#include "sim/tlm/stream.h"

namespace npu::sim {

std::vector<std::pair<uint64_t, uint64_t>> occupancy_curve(const std::vector<uint64_t>& writes,
                                                           const std::vector<uint64_t>& reads) {
    std::vector<std::pair<uint64_t, uint64_t>> points;
    size_t wi = 0, ri = 0;
    while (wi < writes.size() || ri < reads.size()) {
        const uint64_t t = std::min(wi < writes.size() ? writes[wi] : UINT64_MAX,
                                    ri < reads.size() ? reads[ri] : UINT64_MAX);
        while (ri < reads.size() && reads[ri] == t) {
            ++ri;
        }
        while (wi < writes.size() && writes[wi] == t) {
            ++wi;
        }
        const uint64_t n = wi - std::min(wi, ri);
        if (points.empty() || points.back().second != n) {
            points.emplace_back(t, n);
        }
    }
    return points;
}

}  // namespace npu::sim
