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
// The boot ROM's clocks: the blocks start at them (connect_clocks keeps them in step after).
const soc::Clocks& boot_clocks() {
    static const soc::Clocks c = soc::clocks_of(soc::SysctlClockRegs::at_boot());
    return c;
}
sc_time period(double hz) {
    return sc_time(1.0 / hz, sc_core::SC_SEC);
}
}  // namespace

FirmwareSoc::FirmwareSoc(sc_core::sc_module_name name, const K210Config& cfg,
                         sim::TraceWriter& trace,
                         std::function<void(const std::string&, const std::string&)> output)
    : sc_module(name)
    , k210("k210", cfg, trace)
    , plic("plic", register_latency(cfg))
    , clint("clint", FirmwareMap::kClintClockDiv, register_latency(cfg))
    , uarths("uarths", register_latency(cfg), sink("uarths"))
    , uart1("uart1", boot_clocks()[soc::Clock::kApb0], register_latency(cfg), sink("uart1"))
    , uart2("uart2", boot_clocks()[soc::Clock::kApb0], register_latency(cfg), sink("uart2"))
    , uart3("uart3", boot_clocks()[soc::Clock::kApb0], register_latency(cfg), sink("uart3"))
    , fpioa("fpioa", register_latency(cfg))
    , gpiohs("gpiohs", register_latency(cfg), fpioa, pins("gpiohs", soc::FpioaFunction::kGpiohs0))
    , gpio("gpio", register_latency(cfg), fpioa, pins("gpio", soc::FpioaFunction::kGpio0))
    , timer0("timer0", period(boot_clocks()[soc::Clock::kTimer0]), register_latency(cfg))
    , timer1("timer1", period(boot_clocks()[soc::Clock::kTimer1]), register_latency(cfg))
    , timer2("timer2", period(boot_clocks()[soc::Clock::kTimer2]), register_latency(cfg))
    , wdt0("wdt0", period(boot_clocks()[soc::Clock::kWdt0]), register_latency(cfg))
    , wdt1("wdt1", period(boot_clocks()[soc::Clock::kWdt1]), register_latency(cfg))
    , spi0("spi0", boot_clocks()[soc::Clock::kSpi0], register_latency(cfg), lcd_sink())
    , lcd({cfg.lcd.controller, 240, 320, cfg.lcd.bgr})
    , dvp("dvp", cfg.platform.bus, boot_clocks()[soc::Clock::kApb1], register_latency(cfg))
    , spi3("spi3", boot_clocks()[soc::Clock::kSpi3], register_latency(cfg), flash_sink(),
           soc::DwSsi::kSpi3)
    , cpu1("cpu1", cfg.platform.bus)
    , hart("hart0", k210.cpu, plic, clint, trace, 0)
    , hart1("hart1", cpu1, plic, clint, trace, 1)
    , m_map(cfg.devices)
    , m_output(std::move(output)) {
    clint.count(hart.clock());  // one prescaler on the CPU clock: mtime = hart 0's mcycle / 50
    cpu1.socket.bind(k210.router.target_socket);
    map_block("plic", plic.regs.socket);
    map_block("clint", clint.regs.socket);
    map_block("uarths", uarths.regs.socket);
    map_block("fpioa", fpioa.regs.socket);
    map_block("gpiohs", gpiohs.regs.socket);
    map_block("gpio", gpio.regs.socket);
    plic.connect(irq("kpu"), k210.kpu.irq);
    plic.connect(irq("gpio"), gpio.irq);
    for (unsigned p = 0; p < soc::Gpiohs::kPins; ++p) {
        plic.connect(irq("gpiohs", p), gpiohs.irq[p]);
    }
    for (unsigned ch = 0; ch < dma::regs::kChannels; ++ch) {
        plic.connect(irq("dmac", ch), k210.dmac.irq[ch]);
    }
    connect_timers();
    connect_uarts();
    connect_watchdogs();
    connect_lcd(cfg.lcd);
    connect_camera(cfg.camera);
    connect_flash();
    connect_clocks();
    k210.stats().attach(plic.stats());
    k210.stats().attach(uarths.stats());
    map_hart(cfg);
    connect_harts();
}

// Busy-wait loops: what can end a hart's wait besides its interrupts (k210_hart_spin.cpp).
void FirmwareSoc::connect_harts() {
    for (K210Hart* h : {&hart, &hart1}) {
        h->set_peer(h == &hart ? &hart1 : &hart);
        h->wake_on((h == &hart ? hart1 : hart).busy_event());
        h->wake_on(k210.dmac.axi.written_event());
        h->wake_on(dvp.axi.written_event());
        h->wake_on(k210.kpu.layer_done_event());
        h->wake_on(spi0.idle_event());
        h->wake_on(spi3.idle_event());
        h->wake_on(dvp.status_event());
    }
}

// TIMER0-2: registers, lines A and B (PLIC 14 + 2n, 15 + 2n), PWM outputs.
void FirmwareSoc::connect_timers() {
    soc::DwTimer* timers[] = {&timer0, &timer1, &timer2};
    for (unsigned i = 0; i < 3; ++i) {
        const std::string name = fmt::format("timer{}", i);
        map_block(name, timers[i]->regs.socket);
        plic.connect(irq(name, 0), timers[i]->irq_a);
        plic.connect(irq(name, 1), timers[i]->irq_b);
        timers[i]->on_pwm(pwm(i));
    }
}

// WDT0-1: registers, interrupts (PLIC 21, 22); a reset of the chip ends the run (npusim does not
// restart the firmware).
void FirmwareSoc::connect_watchdogs() {
    soc::DwWdt* wdts[] = {&wdt0, &wdt1};
    for (unsigned i = 0; i < 2; ++i) {
        const std::string name = fmt::format("wdt{}", i);
        map_block(name, wdts[i]->regs.socket);
        plic.connect(irq(name), wdts[i]->irq);
        wdts[i]->on_reset([this, i](const sc_time& at) {
            m_chip_reset = fmt::format(
                "the watchdog WDT{} reset the chip at {:.3f} us (its interrupt still raised at a "
                "second timeout); npusim ends the run there",
                i, at.to_seconds() * 1e6);
            sc_core::sc_stop();
        });
    }
}

// UART1-3: registers, interrupts (PLIC 11-13), stats, DMA requests.
void FirmwareSoc::connect_uarts() {
    for (unsigned i = 0; i < 3; ++i) {
        soc::DwApbUart* u = &uart(i + 1);
        const std::string name = fmt::format("uart{}", i + 1);
        map_block(name, u->regs.socket);
        plic.connect(irq(name), u->irq);
        k210.stats().attach(u->stats());
        // SYSCTL_DMA_SELECT_UART1_RX_REQ 14, _TX_REQ 15, UART2 16 and 17, ...
        k210.dmac.connect_request(FirmwareMap::kDmaUart1Rx + 2 * i,
                                  {[u] { return u->rx_available(); }, &u->dma_event()});
        k210.dmac.connect_request(FirmwareMap::kDmaUart1Rx + 2 * i + 1,
                                  {[u] { return u->tx_room(); }, &u->dma_event()});
    }
}

void FirmwareSoc::map_block(const std::string& name, tlm::tlm_base_target_socket<>& target) {
    const SocDevice& d = m_map.at(name);
    sim::Router& r = k210.router;
    r.map(name, d.base_addr, d.size_bytes, r.bind_target(target));
}

soc::DwApbUart& FirmwareSoc::uart(unsigned n) {
    return n == 1 ? uart1 : n == 2 ? uart2 : uart3;
}

// The clocks at boot are the blocks' (their constructors'; the KPU keeps the platform's clock
// while PLL1 is off); each write to a SYSCTL clock register recomputes them all and moves the
// blocks whose clock changed.
void FirmwareSoc::connect_clocks() {
    m_clocks = boot_clocks();
    for (unsigned c = 0; c < soc::kClockCount; ++c) {
        m_clock_log += fmt::format("0.000 {} {:.0f}\n", soc::clock_name(static_cast<soc::Clock>(c)),
                                   m_clocks.hz[c]);
    }
    if (m_clocks[soc::Clock::kAi] > 0) {
        k210.kpu.set_clock_hz(m_clocks[soc::Clock::kAi]);
    }
    k210.dmac.on_sysctl_write([this](uint64_t offset, const sc_time& at) {
        soc::SysctlClockRegs probe;
        if (probe.word(offset) != nullptr) {  // a clock register
            clocks_written(at);
        }
    });
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&k210.kpu.layer_done_event());
    sc_core::sc_spawn([this] { layer_done(); }, "clock_check", &o);
}

void FirmwareSoc::clocks_written(const sc_time& at) {
    const soc::Clocks now = soc::clocks_of(soc::SysctlClockRegs::read(
        [this](uint64_t offset) { return k210.dmac.sysctl_value(offset); }));
    for (unsigned c = 0; c < soc::kClockCount; ++c) {
        if (now.hz[c] != m_clocks.hz[c]) {
            m_clock_log += fmt::format("{:.3f} {} {:.0f}\n", at.to_seconds() * 1e6,
                                       soc::clock_name(static_cast<soc::Clock>(c)), now.hz[c]);
            set_clock(static_cast<soc::Clock>(c), now.hz[c], at);
        }
    }
    m_clocks = now;
}

// A stopped clock (0 Hz: its PLL off) would stop its blocks on the chip; they keep their last
// clock here, with a warning, except the KPU's, checked when it runs.
void FirmwareSoc::set_clock(soc::Clock c, double hz, const sc_time& at) {
    if (hz <= 0 && (c == soc::Clock::kSpi0 || c == soc::Clock::kSpi3)) {
        return;  // PLL0 off while the demos change it: SPI0 keeps its last clock, quietly (the
                 // SDK sets the SPI rate after the PLL is back)
    }
    if (hz <= 0 && c != soc::Clock::kAi) {
        warn(
            fmt::format("the {} clock stopped at {:.3f} us (SYSCTL); on the chip its blocks "
                        "stop, here they keep their last clock",
                        soc::clock_name(c), at.to_seconds() * 1e6));
        return;
    }
    switch (c) {
    case soc::Clock::kCpu:
        hart.set_clock_hz(hz);
        hart1.set_clock_hz(hz);  // the CLINT counts hart 0's cycles on at its new clock
        break;
    case soc::Clock::kApb0:
        for (unsigned n = 1; n <= 3; ++n) {
            uart(n).set_clock_hz(hz);
        }
        break;
    case soc::Clock::kApb1: dvp.set_apb1_hz(hz); break;
    case soc::Clock::kAi:
        if (hz > 0) {
            k210.kpu.set_clock_hz(hz);
        }
        break;
    case soc::Clock::kTimer0: timer0.set_tick(at, period(hz)); break;
    case soc::Clock::kTimer1: timer1.set_tick(at, period(hz)); break;
    case soc::Clock::kTimer2: timer2.set_tick(at, period(hz)); break;
    case soc::Clock::kWdt0: wdt0.set_tick(at, period(hz)); break;
    case soc::Clock::kWdt1: wdt1.set_tick(at, period(hz)); break;
    case soc::Clock::kSpi0: spi0.set_clock_hz(hz); break;
    case soc::Clock::kSpi3: spi3.set_clock_hz(hz); break;
    default: break;  // APB2: no block npusim times runs on it
    }
}

void FirmwareSoc::layer_done() {
    if (m_clocks[soc::Clock::kAi] <= 0) {
        warn(fmt::format(
            "the KPU ran a layer while its clock is stopped (PLL1 off, as after boot): on the "
            "chip it does not run; the SDK's demos start PLL1 first (sysctl_pll_set_freq("
            "SYSCTL_PLL1, 400000000)); timed here at the platform's {:.0f} MHz",
            k210.kpu.clock_hz() / 1e6));
    }
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

void FirmwareSoc::finish_uarts() {
    const sc_time end = sc_core::sc_time_stamp();
    for (unsigned n = 1; n <= 3; ++n) {
        soc::DwApbUart& u = uart(n);
        const soc::DwApbUart::Drained d = u.drain_tx(end);
        if (d.bytes > 0) {
            warn(
                fmt::format("uart{}: {} character{} still in its transmit FIFO when the run ended "
                            "{} written as the line carries them on (the last stop bit at "
                            "{:.3f} us, {:.3f} us after the end)",
                            n, d.bytes, d.bytes == 1 ? "" : "s", d.bytes == 1 ? "is" : "are",
                            d.last.to_seconds() * 1e6, (d.last - end).to_seconds() * 1e6));
        }
        if (u.bytes_received() > 0 &&
            fpioa.pads().pad_of(soc::FpioaFunction::kUart1Rx + 2 * (n - 1)) < 0) {
            warn(
                fmt::format("uart{} received its input, but no pad carries UART{}_RX "
                            "(fpioa_set_function): on a board nothing reaches it",
                            n, n));
        }
        if (u.input_left() > 0) {
            warn(u.line_started()
                     ? fmt::format("uart{}: {} of its input bytes had not arrived when the run "
                                   "ended (--uart-input)",
                                   n, u.input_left())
                     : fmt::format("uart{} was given input (--uart-input) but the firmware never "
                                   "set its baud rate: none of its {} byte{} arrived",
                                   n, u.input_left(), u.input_left() == 1 ? "" : "s"));
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
    // Every modelled block of the map (the KPU, DMAC and SYSCTL among them) at its window.
    std::vector<HartDevice> dev;
    for (const SocDevice& d : m_map.devices()) {
        if (d.modelled) {
            dev.push_back({d.name, d.base_addr, d.size_bytes});
        }
    }
    hart.map(mem, dev);
    hart1.map(std::move(mem), std::move(dev));
}

}  // namespace npu::k210
