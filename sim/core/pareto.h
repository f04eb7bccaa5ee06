// The Pareto front of configurations with several costs, each to be minimised: a point is on the
// front when no other point costs no more in every measure and less in one; of identical points
// the first stays on it. Shared by the sweeps (FINN's folding, the DL processor's parameters).
// Pure C++.
#pragma once

#include <cstdint>
#include <vector>

namespace npu::sim {

// The most configurations one sweep costs (a file asking for more is refused before costing).
constexpr uint64_t kMaxSweepConfigurations = 1'000'000;

// `costs[i]`: point i's measures, all of one length; an empty vector is a point that is not a
// configuration (never on the front, never dominating). Returns one flag per point.
std::vector<bool> pareto_front(const std::vector<std::vector<double>>& costs);

}  // namespace npu::sim
