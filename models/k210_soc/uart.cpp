#include "models/k210_soc/uart.h"

#include <fmt/format.h>

namespace npu::soc {

using sim::Access;

namespace {
constexpr uint64_t kFull32 = 0xffffffff;
}  // namespace

UartHs::UartHs(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink)
    : sc_module(name)
    , m_sink(std::move(sink))
    , m_stats(basename())
    , m_sent(m_stats.counter("bytes_sent", "bytes", "bytes the firmware transmitted"))
    , regs("regs", "uarths", kBytes, access_latency) {
    // txdata: a write sends its low byte; a read says "not full" (bit 31 clear).
    regs.add({"txdata", 0x00, 4, 0, Access::RW, 0, true}).on_write([this](uint64_t v) {
        ++m_sent;
        m_sink(static_cast<uint8_t>(v));
    });
    regs.add({"rxdata", 0x04, 4, uint64_t{1} << 31, Access::RO, 0, true});  // always empty
    const char* names[] = {"txctrl", "rxctrl", "ie", "ip", "div"};
    for (uint64_t i = 0; i < 5; ++i) {
        // ip: read only (txwm: the transmit queue is below its watermark); uarths_init writes it
        // anyway (SDK uarths.c), and the write is ignored, not an error.
        regs.add({names[i], 0x08 + 4 * i, 4, uint64_t{i == 3 ? 1u : 0u},
                  i == 3 ? Access::RO_WI : Access::RW, kFull32, true});
    }
}

}  // namespace npu::soc
