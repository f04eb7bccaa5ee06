#include "platforms/k210/firmware/firmware_soc.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/k210_dma/dmac_regs.h"
#include "models/k210_kpu/kpu_regs.h"

namespace npu::k210 {

using sc_core::sc_time;

namespace {
sc_time register_latency(const K210Config& cfg) {
    return sc_time(cfg.dmac.register_latency_ns, sc_core::SC_NS);
}
sc_time timer_tick() {
    return sc_time(1.0 / static_cast<double>(FirmwareMap::kTimerClockHz), sc_core::SC_SEC);
}
}  // namespace

FirmwareSoc::FirmwareSoc(sc_core::sc_module_name name, const K210Config& cfg,
                         sim::TraceWriter& trace,
                         std::function<void(const std::string&, const std::string&)> output)
    : sc_module(name)
    , k210("k210", cfg, trace)
    , plic("plic", register_latency(cfg))
    , clint("clint",
            sc_time(static_cast<double>(FirmwareMap::kClintClockDiv) /
                        static_cast<double>(cfg.cpu.clock_hz),
                    sc_core::SC_SEC),
            register_latency(cfg))
    , uarths("uarths", register_latency(cfg), sink("uarths"))
    , uart1("uart1", FirmwareMap::kUartClockHz, register_latency(cfg), sink("uart1"))
    , uart2("uart2", FirmwareMap::kUartClockHz, register_latency(cfg), sink("uart2"))
    , uart3("uart3", FirmwareMap::kUartClockHz, register_latency(cfg), sink("uart3"))
    , fpioa("fpioa", register_latency(cfg))
    , gpiohs("gpiohs", register_latency(cfg), fpioa, pins("gpiohs", soc::FpioaFunction::kGpiohs0))
    , gpio("gpio", register_latency(cfg), fpioa, pins("gpio", soc::FpioaFunction::kGpio0))
    , timer0("timer0", timer_tick(), register_latency(cfg))
    , timer1("timer1", timer_tick(), register_latency(cfg))
    , timer2("timer2", timer_tick(), register_latency(cfg))
    , cpu1("cpu1", cfg.platform.bus)
    , hart("hart0", k210.cpu, plic, clint, trace, 0)
    , hart1("hart1", cpu1, plic, clint, trace, 1)
    , m_output(std::move(output)) {
    sim::Router& r = k210.router;
    cpu1.socket.bind(r.target_socket);
    r.map("plic", FirmwareMap::kPlic, soc::Plic::kBytes, r.bind_target(plic.regs.socket));
    r.map("clint", FirmwareMap::kClint, soc::Clint::kBytes, r.bind_target(clint.regs.socket));
    r.map("uarths", FirmwareMap::kUartHs, 0x1000, r.bind_target(uarths.regs.socket));
    r.map("fpioa", FirmwareMap::kFpioa, 0x1000, r.bind_target(fpioa.regs.socket));
    r.map("gpiohs", FirmwareMap::kGpiohs, 0x1000, r.bind_target(gpiohs.regs.socket));
    r.map("gpio", FirmwareMap::kGpio, 0x1000, r.bind_target(gpio.regs.socket));
    plic.connect(FirmwareMap::kIrqKpu, k210.kpu.irq);
    plic.connect(FirmwareMap::kIrqGpio, gpio.irq);
    for (unsigned p = 0; p < soc::Gpiohs::kPins; ++p) {
        plic.connect(FirmwareMap::kIrqGpiohs0 + p, gpiohs.irq[p]);
    }
    for (unsigned ch = 0; ch < dma::regs::kChannels; ++ch) {
        plic.connect(FirmwareMap::kIrqDmac0 + ch, k210.dmac.irq[ch]);
    }
    connect_timers();
    connect_uarts();
    k210.stats().attach(plic.stats());
    k210.stats().attach(uarths.stats());
    map_hart(cfg);
    // Busy-wait loops: what can end a hart's wait besides its interrupts (k210_hart_spin.cpp).
    for (K210Hart* h : {&hart, &hart1}) {
        h->set_peer(h == &hart ? &hart1 : &hart);
        h->wake_on((h == &hart ? hart1 : hart).busy_event());
        h->wake_on(k210.dmac.axi.written_event());
        h->wake_on(k210.kpu.layer_done_event());
    }
}

// TIMER0-2: registers, lines A and B (PLIC 14 + 2n, 15 + 2n), PWM outputs.
void FirmwareSoc::connect_timers() {
    sim::Router& r = k210.router;
    soc::DwTimer* timers[] = {&timer0, &timer1, &timer2};
    for (unsigned i = 0; i < 3; ++i) {
        r.map(fmt::format("timer{}", i), FirmwareMap::kTimer0 + i * FirmwareMap::kTimerStride,
              0x1000, r.bind_target(timers[i]->regs.socket));
        plic.connect(FirmwareMap::kIrqTimer0A + 2 * i, timers[i]->irq_a);
        plic.connect(FirmwareMap::kIrqTimer0A + 2 * i + 1, timers[i]->irq_b);
        timers[i]->on_pwm(pwm(i));
    }
}

// UART1-3: registers, interrupts (PLIC 11-13), stats, DMA requests.
void FirmwareSoc::connect_uarts() {
    sim::Router& r = k210.router;
    const uint64_t bases[] = {FirmwareMap::kUart1, FirmwareMap::kUart2, FirmwareMap::kUart3};
    for (unsigned i = 0; i < 3; ++i) {
        soc::DwApbUart* u = &uart(i + 1);
        r.map(fmt::format("uart{}", i + 1), bases[i], 0x1000, r.bind_target(u->regs.socket));
        plic.connect(FirmwareMap::kIrqUart1 + i, u->irq);
        k210.stats().attach(u->stats());
        // SYSCTL_DMA_SELECT_UART1_RX_REQ 14, _TX_REQ 15, UART2 16 and 17, ...
        k210.dmac.connect_request(FirmwareMap::kDmaUart1Rx + 2 * i,
                                  {[u] { return u->rx_available(); }, &u->dma_event()});
        k210.dmac.connect_request(FirmwareMap::kDmaUart1Rx + 2 * i + 1,
                                  {[u] { return u->tx_room(); }, &u->dma_event()});
    }
}

soc::DwApbUart& FirmwareSoc::uart(unsigned n) {
    return n == 1 ? uart1 : n == 2 ? uart2 : uart3;
}

void FirmwareSoc::set_uart_input(unsigned n, std::vector<uint8_t> bytes) {
    uart(n).set_input(std::move(bytes));
}

// A UART's byte; UART1-3 (not UARTHS, on its boot pads io4/io5, assumed) warn once when no pad
// carries their TX function.
soc::ByteSink FirmwareSoc::sink(const std::string& port) {
    return [this, port](uint8_t b) {
        if (port.size() == 5 && port.compare(0, 4, "uart") == 0) {
            const unsigned n = static_cast<unsigned>(port[4] - '1');
            if (fpioa.pads().pad_of(soc::FpioaFunction::kUart1Tx + 2 * n) < 0) {
                warn(
                    fmt::format("{} transmits, but no pad carries UART{}_TX "
                                "(fpioa_set_function): on a board nothing leaves the chip",
                                port, n + 1));
            }
        }
        const std::string text(1, static_cast<char>(b));
        m_uart_text[port] += text;
        if (m_output) {
            m_output(port, text);
        }
    };
}

// A pin change, at the writing hart's time (the register access's own time) or the input's, with
// the pad that carries the pin's function (`function0` + pin).
soc::PinSink FirmwareSoc::pins(const std::string& block, unsigned function0) {
    return [this, block, function0](unsigned pin, bool level, bool output, sc_time at) {
        const int pad = fpioa.pads().pad_of(function0 + pin);
        const std::string name = block == "gpio" ? "GPIO" : "GPIOHS";
        if (pad < 0 && output) {
            warn(
                fmt::format("{} pin {} drives, but no pad carries {}{} (fpioa_set_function): on "
                            "a board nothing leaves the chip",
                            block, pin, name, pin));
        }
        const double us = at.to_seconds() * 1e6;
        m_pin_log += fmt::format("{:.3f} {} {} {} {} {}\n", us, block, pin, level ? 1 : 0,
                                 pad < 0 ? std::string("-") : fmt::format("io{}", pad),
                                 output ? "out" : "in");
    };
}

// A PWM change of TIMERn's channel, with the pad carrying its toggle output (FUNC_TIMERn_TOGGLEm:
// 190 + 4n + channel); a second change at the same instant replaces the first (the SDK's
// pwm_set_frequency writes load_count, then load_count2).
soc::PwmSink FirmwareSoc::pwm(unsigned timer) {
    return [this, timer](unsigned channel, bool on, double hz, double duty, sc_time at) {
        const int pad =
            fpioa.pads().pad_of(soc::FpioaFunction::kTimer0Toggle1 + 4 * timer + channel);
        PwmLine line{timer, channel, at,
                     fmt::format("{:.3f} timer{} {} {:.3f} {:.4f} {}\n", at.to_seconds() * 1e6,
                                 timer, channel, on ? hz : 0.0, on ? duty : 0.0,
                                 pad < 0 ? std::string("-") : fmt::format("io{}", pad))};
        for (auto it = m_pwm.rbegin(); it != m_pwm.rend(); ++it) {
            if (it->timer == timer && it->channel == channel) {
                if (it->at == at) {
                    *it = std::move(line);
                    return;
                }
                break;
            }
        }
        m_pwm.push_back(std::move(line));
    };
}

void FirmwareSoc::check_pads() {
    for (unsigned n = 1; n <= 3; ++n) {
        if (uart(n).bytes_received() > 0 &&
            fpioa.pads().pad_of(soc::FpioaFunction::kUart1Rx + 2 * (n - 1)) < 0) {
            warn(
                fmt::format("uart{} received its input, but no pad carries UART{}_RX "
                            "(fpioa_set_function): on a board nothing reaches it",
                            n, n));
        }
    }
}

std::string FirmwareSoc::pwm_log() const {
    std::string out;
    for (const PwmLine& l : m_pwm) {
        out += l.text;
    }
    return out;
}

void FirmwareSoc::warn(const std::string& text) {
    if (std::find(m_warnings.begin(), m_warnings.end(), text) != m_warnings.end()) {
        return;
    }
    m_warnings.push_back(text);
    if (m_output) {
        m_output("npusim", "warning: " + text + "\n");
    }
}

// The harts reach SRAM and AI SRAM directly (their uncached windows at bus cost), everything
// else through its own port into the SoC's router.
void FirmwareSoc::map_hart(const K210Config& cfg) {
    const platform::MemoryRegion& sram = cfg.platform.memories.front();
    std::vector<HartMemory> mem{
        {"sram", sram.base_addr, sram.memory.size_bytes, k210.memories.front()->data(), false},
        {"ai_sram", cfg.ai_ram_base_addr, kpu::kRamBytes, k210.kpu.ram.data(), false}};
    for (uint64_t alias : sram.alias_addrs) {
        mem.push_back(
            {"sram.io", alias, sram.memory.size_bytes, k210.memories.front()->data(), true});
    }
    mem.push_back({"ai_sram.io", cfg.ai_ram_io_addr, kpu::kRamBytes, k210.kpu.ram.data(), true});
    std::vector<HartDevice> dev{
        {"kpu", cfg.kpu_base_addr, kpu::regs::kBlockBytes},
        {"dmac", cfg.dmac_base_addr, dma::regs::kBlockBytes},
        {"sysctl", cfg.sysctl_base_addr, dma::regs::kSysctlBytes},
        {"plic", FirmwareMap::kPlic, soc::Plic::kBytes},
        {"clint", FirmwareMap::kClint, soc::Clint::kBytes},
        {"uarths", FirmwareMap::kUartHs, 0x1000},
        {"uart1", FirmwareMap::kUart1, 0x1000},
        {"uart2", FirmwareMap::kUart2, 0x1000},
        {"uart3", FirmwareMap::kUart3, 0x1000},
        {"fpioa", FirmwareMap::kFpioa, 0x1000},
        {"gpiohs", FirmwareMap::kGpiohs, 0x1000},
        {"gpio", FirmwareMap::kGpio, 0x1000},
        {"timer0", FirmwareMap::kTimer0, 0x1000},
        {"timer1", FirmwareMap::kTimer0 + FirmwareMap::kTimerStride, 0x1000},
        {"timer2", FirmwareMap::kTimer0 + 2 * FirmwareMap::kTimerStride, 0x1000},
    };
    hart.map(mem, dev);
    hart1.map(std::move(mem), std::move(dev));
}

}  // namespace npu::k210
