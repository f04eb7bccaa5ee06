// A K210 TIMER block (TIMER0-2: DesignWare DW_apb_timers, 4 channels; the SDK's kendryte_timer_t)
// as the SDK's timer.c drives it: load_count, current_value counting down from it at the timer
// clock, control (enable, user-defined/free-running mode, interrupt mask), and the interrupt
// status and end-of-interrupt reads per channel and for the block. A channel expires every
// load_count + 1 counts (user-defined mode; free-running after the first expiry: 2^32); its
// interrupt stays until its eoi (or the block's) is read. Channels 0-1 raise line A, 2-3 line B
// (PLIC 14 + 2n and 15 + 2n). With PWM enable a channel drives its toggle output (the FPIOA's
// TIMERn_TOGGLEm), reported as frequency and duty when they change. docs/firmware.md.
#pragma once

#include <array>
#include <functional>

#include <systemc>

#include "models/k210_soc/uart.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

// A channel's PWM output changed: on or off, its frequency (Hz) and duty (high / period), when.
using PwmSink = std::function<void(unsigned channel, bool on, double frequency_hz, double duty,
                                   sc_core::sc_time at)>;

class DwTimer : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0xc0;
    static constexpr unsigned kChannels = 4;
    // `tick`: one count of the timer clock.
    DwTimer(sc_core::sc_module_name name, sc_core::sc_time tick, sc_core::sc_time access_latency);

    sim::IrqLine irq_a, irq_b;  // channels 0-1, 2-3
    void on_pwm(PwmSink sink) { m_pwm_sink = std::move(sink); }
    // The timer clock changed at `at`: running channels count on from where they are at the new
    // tick (their next expiry moves; a PWM output's frequency changes then).
    void set_tick(const sc_core::sc_time& at, const sc_core::sc_time& tick);

private:
    struct Pwm {
        uint64_t high = 0, low = 0;  // counts; 0: not a PWM output
    };
    struct Channel {
        sim::Register *load_count = nullptr, *current_value = nullptr, *control = nullptr;
        sim::Register* load_count2 = nullptr;
        Pwm pwm;
        sc_core::sc_time pwm_since;  // when the PWM output's current counts took effect
        bool raw = false;            // expired, not yet acknowledged
        bool running = false;
        sc_core::sc_time start;  // when it (re)started counting from load_count
        sc_core::sc_time due;    // its next expiry
    };
    void add_channel(unsigned c);
    void control_written(unsigned c);
    void pwm_changed(unsigned c);
    void report_pwm(unsigned c, const sc_core::sc_time& at);
    uint64_t current(unsigned c, const sc_core::sc_time& at) const;
    sc_core::sc_time period(unsigned c, bool first) const;
    uint64_t status(bool masked) const;
    void update_lines();
    void expire();  // SC_METHOD: raises the channels due now, waits for the next

    sc_core::sc_time m_tick;
    std::array<Channel, kChannels> m_ch{};
    sc_core::sc_event m_wake;
    PwmSink m_pwm_sink;

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
