#include "sim/core/version.h"

namespace npu::sim {

const char* npusim_version() {
    return NPUSIM_VERSION;
}

}  // namespace npu::sim
