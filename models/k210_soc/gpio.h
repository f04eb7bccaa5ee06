// The K210's two GPIO blocks as the Kendryte SDK drives them (gpiohs.h, gpio.h): GPIOHS, 32
// high-speed pins (a SiFive GPIO at 0x38001000), and GPIO, 8 pins (a DesignWare APB GPIO at
// 0x50200000). Outputs: every change of a driven pin's level is reported (pin, level); inputs
// read back what the pin drives (no external levels yet). Interrupt registers are kept as written
// (pin interrupts are not raised yet).
#pragma once

#include <functional>

#include <systemc>

#include "models/k210_soc/uart.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

// A pin's level changed (driven by the firmware): pin number, its new level, and when (the
// register write's own time).
using PinSink = std::function<void(unsigned pin, bool level, sc_core::sc_time at)>;

// The level each pin drives: (value ^ xor) where enabled; reports what changed since `before`.
class PinDriver {
public:
    explicit PinDriver(PinSink sink)
        : m_sink(std::move(sink)) {}
    // `levels`: the driven levels (bits), `driven`: which pins drive at all.
    void update(uint32_t levels, uint32_t driven, sc_core::sc_time at);

private:
    PinSink m_sink;
    uint32_t m_levels = 0, m_driven = 0;
};

class Gpiohs : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x44;  // gpiohs_t: 17 words
    Gpiohs(sc_core::sc_module_name name, sc_core::sc_time access_latency, PinSink sink);

private:
    void drive();
    RegisterFile m_file;
    sim::Register *m_output_en = nullptr, *m_output_val = nullptr, *m_output_xor = nullptr;
    PinDriver m_pins;

public:
    sim::RegisterTarget regs;
};

class DwGpio : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x6c;  // gpio_t, up to interrupt_bothedge
    DwGpio(sc_core::sc_module_name name, sc_core::sc_time access_latency, PinSink sink);

private:
    void drive();
    RegisterFile m_file;
    sim::Register *m_data_output = nullptr, *m_direction = nullptr;
    PinDriver m_pins;

public:
    sim::RegisterTarget regs;
};

}  // namespace npu::soc
