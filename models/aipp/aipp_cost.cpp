#include "models/aipp/aipp_cost.h"

#include <algorithm>
#include <cmath>

#include "models/aipp/aipp_func.h"

namespace npu::aipp {

AippCost aipp_cost(const Params& p, const LoadParams& l, const AippTiming& t) {
    const Counts n = counts(p, l);
    const Geometry g = geometry(p, l);
    AippCost c;
    c.read_bytes = n.src0_bytes + n.src1_bytes;
    c.write_bytes = n.dst_bytes;
    c.read_cycles = static_cast<uint64_t>(
        std::ceil(static_cast<double>(c.read_bytes) / t.gm_read_bytes_per_cycle));
    c.write_cycles = static_cast<uint64_t>(
        std::ceil(static_cast<double>(c.write_bytes) / t.l1_write_bytes_per_cycle));
    c.row_cycles = uint64_t{g.height} * t.row_overhead_cycles;
    c.total_cycles = t.start_cycles + c.row_cycles + std::max(c.read_cycles, c.write_cycles);
    return c;
}

}  // namespace npu::aipp
