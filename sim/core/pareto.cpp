#include "sim/core/pareto.h"

#include <algorithm>
#include <cstddef>

namespace npu::sim {

// Sorted lexicographically by cost (then by index), a point can only be dominated by an earlier
// one, and when it is, by one already on the front (domination is transitive): each point is
// compared with the front so far.
std::vector<bool> pareto_front(const std::vector<std::vector<double>>& costs) {
    std::vector<size_t> order;
    for (size_t i = 0; i < costs.size(); ++i) {
        if (!costs[i].empty()) {
            order.push_back(i);
        }
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return costs[a] != costs[b] ? costs[a] < costs[b] : a < b;
    });
    std::vector<bool> on(costs.size(), false);
    std::vector<size_t> front;
    for (size_t i : order) {
        const std::vector<double>& p = costs[i];
        const bool dominated = std::any_of(front.begin(), front.end(), [&](size_t f) {
            const std::vector<double>& q = costs[f];
            for (size_t k = 0; k < p.size(); ++k) {
                if (q[k] > p[k]) {
                    return false;
                }
            }
            return true;
        });
        if (!dominated) {
            on[i] = true;
            front.push_back(i);
        }
    }
    return on;
}

}  // namespace npu::sim
