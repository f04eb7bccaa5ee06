// The K210's two GPIO blocks as the Kendryte SDK drives them (gpiohs.h, gpio.h): GPIOHS, 32
// high-speed pins (a SiFive GPIO at 0x38001000, one interrupt per pin: PLIC 34 + pin), and GPIO,
// 8 pins (a DesignWare DW_apb_gpio at 0x50200000, one interrupt: PLIC 23). Each pin is a function
// of the FPIOA (GPIOHSn: 24 + n, GPIOn: 56 + n): an output drives the pad its function is mapped
// to, an input reads that pad's level (a level from outside, the pad's pull, or what the chip
// drives). Every change of a driven pin's level and of a sampled input is reported (pin, level,
// time). docs/firmware.md, "Pins".
#pragma once

#include <deque>
#include <functional>

#include <systemc>

#include "models/k210_soc/fpioa.h"
#include "models/k210_soc/uart.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

// A pin's level changed: pin number, its new level, whether it is an output the block drives
// (else an input it sampled), and when.
using PinSink = std::function<void(unsigned pin, bool level, bool output, sc_core::sc_time at)>;

// The level each pin drives: (value ^ xor) where enabled; reports what changed since `before`.
class PinDriver {
public:
    explicit PinDriver(PinSink sink)
        : m_sink(std::move(sink)) {}
    // `levels`: the driven levels (bits), `driven`: which pins drive at all.
    void update(uint32_t levels, uint32_t driven, sc_core::sc_time at);
    void report_input(unsigned pin, bool level, sc_core::sc_time at) const {
        m_sink(pin, level, false, at);
    }

private:
    PinSink m_sink;
    uint32_t m_levels = 0, m_driven = 0;
};

// SiFive GPIO: input_val reads the enabled inputs; rise/fall_ip latch edges of the sampled
// inputs, high/low_ip follow their levels (set while the level lasts), all whatever the enables;
// writing 1 to an ip bit clears it; a pin's interrupt is (ip & ie) over the four kinds.
class Gpiohs : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x44;  // gpiohs_t: 17 words
    static constexpr unsigned kPins = 32;
    Gpiohs(sc_core::sc_module_name name, sc_core::sc_time access_latency, Fpioa& fpioa,
           PinSink sink);

    std::deque<sim::IrqLine> irq;  // one per pin

private:
    enum Reg {
        kInputVal,
        kInputEn,
        kOutputEn,
        kOutputVal,
        kRiseIe = 6,
        kRiseIp,
        kFallIe,
        kFallIp,
        kHighIe,
        kHighIp,
        kLowIe,
        kLowIp,
        kOutputXor = 16,
        kRegs
    };
    void drive();
    void sample(sc_core::sc_time at);
    void update_lines();
    uint32_t reg(Reg r) const { return static_cast<uint32_t>(m_r[r]->value()); }

    std::array<sim::Register*, kRegs> m_r{};
    Fpioa& m_fpioa;
    PinDriver m_pins;
    uint32_t m_in = 0;  // the sampled inputs (input_en applied)

public:
    sim::Peripheral regs;
};

// DW_apb_gpio (port A): data_input reads the input pins' pads (outputs: what they drive);
// interrupts on input pins as interrupt_enable selects, by level or edge (interrupt_level),
// polarity or both edges, masked by interrupt_mask; an edge stays until written to
// interrupt_clear (porta_eoi).
class DwGpio : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x6c;  // gpio_t, up to interrupt_bothedge
    static constexpr unsigned kPins = 8;
    DwGpio(sc_core::sc_module_name name, sc_core::sc_time access_latency, Fpioa& fpioa,
           PinSink sink);

    sim::IrqLine irq;

private:
    void drive();
    void sample(sc_core::sc_time at);
    uint32_t raw_status() const;

    sim::Register *m_data_output = nullptr, *m_direction = nullptr;
    sim::Register *m_enable = nullptr, *m_mask = nullptr, *m_level = nullptr, *m_polarity = nullptr,
                  *m_bothedge = nullptr;
    Fpioa& m_fpioa;
    PinDriver m_pins;
    uint32_t m_in = 0;     // the pads' levels as last sampled
    uint32_t m_edges = 0;  // latched edge interrupts

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
