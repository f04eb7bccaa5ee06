#include "sim/core/error.h"

#include <cstdio>
#include <cstdlib>

namespace npu::sim {

void assertion_failed(const char* expr, const char* file, int line, const std::string& message) {
    std::fprintf(stderr, "npusim internal error at %s:%d: %s: %s\n", file, line, expr,
                 message.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace npu::sim
