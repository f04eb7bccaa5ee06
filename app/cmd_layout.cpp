// npusim layout: the KL730 layout tool (platforms/kl730/layout_tool.h) from the command line.
#include <cstdio>

#include "app/app.h"
#include "platforms/kl730/layout_tool.h"

namespace npu::app {

int cmd_layout(const LayoutOptions& o) {
    const std::string text =
        kl730::run_layout_tool({o.action, o.layout, o.shape, o.scale, o.radix, o.stride_npu, o.axis,
                                o.in, o.out, o.fixed, o.limit});
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
}

}  // namespace npu::app
