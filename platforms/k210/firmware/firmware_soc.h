// The K210 SoC a firmware runs on: the KPU's SoC (soc/k210_platform.h: SRAM, AI SRAM, KPU, DMAC,
// SYSCTL DMA selectors) plus the blocks firmware touches around it (PLIC, CLINT, UARTHS, UART1-3,
// FPIOA with its pads, GPIO/GPIOHS, TIMER0-2, WDT0-1, SPI0 and the LCD, the DVP and its camera,
// SPI3 and the flash) at their places in the SoC map (K210Config::devices: the Kendryte SDK's
// addresses and interrupts unless platform.devices says otherwise), and the two harts running the
// ELF. docs/firmware.md.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <systemc>

#include "models/k210_dvp/dvp.h"
#include "models/k210_soc/clint.h"
#include "models/k210_soc/clock_tree.h"
#include "models/k210_soc/dw_ssi.h"
#include "models/k210_soc/dw_uart.h"
#include "models/k210_soc/fpioa.h"
#include "models/k210_soc/gpio.h"
#include "models/k210_soc/plic.h"
#include "models/k210_soc/timer.h"
#include "models/k210_soc/uart.h"
#include "models/k210_soc/wdt.h"
#include "models/lcd_panel/dcs_panel.h"
#include "models/spi_flash/w25q.h"
#include "platforms/k210/firmware/board_camera.h"
#include "platforms/k210/firmware/k210_hart.h"
#include "platforms/k210/soc/k210_platform.h"

namespace npu::k210 {

// What wires the firmware-side blocks besides the SoC map (K210Config::devices): SYSCTL's DMA
// request lines (sysctl.h), the flash's slave select, CLINT's prescaler.
struct FirmwareMap {
    static constexpr unsigned kFlashCs = 0;         // the boards' flash: SPI3 slave select 0
    static constexpr unsigned kDmaUart1Rx = 14;     // SYSCTL_DMA_SELECT_UART1_RX_REQ (sysctl.h)
    static constexpr unsigned kDmaSsi0Tx = 1;       // SYSCTL_DMA_SELECT_SSI0_TX_REQ
    static constexpr unsigned kClintClockDiv = 50;  // CLINT_CLOCK_DIV: mtime = CPU clock / 50
};

class FirmwareSoc : public sc_core::sc_module {
public:
    FirmwareSoc(sc_core::sc_module_name name, const K210Config& cfg, sim::TraceWriter& trace,
                std::function<void(const std::string&, const std::string&)> output);

    K210Platform k210;
    soc::Plic plic;
    soc::Clint clint;
    soc::UartHs uarths;
    soc::DwApbUart uart1, uart2, uart3;
    soc::Fpioa fpioa;
    soc::Gpiohs gpiohs;
    soc::DwGpio gpio;
    soc::DwTimer timer0, timer1, timer2;
    soc::DwWdt wdt0, wdt1;
    soc::DwSsi spi0;
    lcd::DcsPanel lcd;  // the board's LCD on SPI0 (K210Config::lcd)
    dvp::Dvp dvp;       // the camera interface; its sensor is K210Config::camera's
    soc::DwSsi spi3;    // the boards' flash on slave select 0
    flash::W25q flash;
    // Hart 1's data port (hart 0 uses k210.cpu): each core has its own timeline under temporal
    // decoupling, so one port's busy time must not make the other wait.
    sim::AxiPort cpu1;
    K210Hart hart;   // hart 0: runs the ELF from its entry
    K210Hart hart1;  // hart 1: starts at the same entry when the firmware reads mhartid

    // The bytes UART n (1-3) receives, arriving from when the firmware sets its baud rate.
    void set_uart_input(unsigned n, std::vector<uint8_t> bytes);
    // Everything each port transmitted, by port ("uarths", "uart3", ...).
    const std::map<std::string, std::string>& uart_output() const { return m_uart_text; }
    // Levels applied to pads from outside over time (--pin-input).
    void set_pin_input(std::vector<soc::PinEvent> events) { fpioa.set_script(std::move(events)); }
    // Every level change of a driven GPIO/GPIOHS pin and of a sampled input:
    // "<time us> <block> <pin> <level> <pad> <out|in>" lines (pad: ioN, or - when none carries it).
    const std::string& pin_log() const { return m_pin_log; }
    // Every change of a timer channel's PWM output: "<time us> timer<n> <channel> <frequency Hz>
    // <duty> <pad>" lines (frequency 0: off; changes at one instant are one line).
    std::string pwm_log() const;
    // What the SoC noticed that a firmware developer should know (a block used through no pad),
    // each once.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    // After the run: what the UARTs still held reaches their output (the characters in a TX FIFO
    // as the line carries them on, with a note); a UART that received bytes with no pad carrying
    // its RX, or that was given input it never took, is a warning too.
    void finish_uarts();
    // The clocks SYSCTL's registers give now (at boot: the ROM's, soc::SysctlClockRegs), and
    // every change: "<time us> <clock> <Hz>" lines (the boot clocks at 0).
    const soc::Clocks& clocks() const { return m_clocks; }
    const std::string& clock_log() const { return m_clock_log; }
    // A watchdog's reset of the chip ("" if none): the run ended there.
    const std::string& chip_reset() const { return m_chip_reset; }
    // Every LCD frame finished, with when its last pixel was written (firmware_lcd.cpp), and the
    // one being drawn at the end of the run.
    struct LcdShot {
        sc_core::sc_time at;     // its last pixel
        sc_core::sc_time first;  // its first pixel
        lcd::Frame frame;        // pixels kept only for the frames written (--lcd-every)
    };
    const std::vector<LcdShot>& lcd_frames() const { return m_lcd_frames; }
    std::optional<LcdShot> lcd_last() const;
    // --lcd-every N: keep the pixels of every Nth frame (0, N, 2N...); --max-frames N: end the run
    // when N frames are finished (frames_done()).
    void set_frame_options(size_t keep_every, size_t max_frames) {
        m_keep_every = keep_every, m_max_frames = max_frames;
    }
    bool frames_done() const { return m_frames_done; }
    // The flash's contents from `path` at `offset` (--flash FILE[@OFFSET]); throws sim::Error
    // naming the file when it cannot be read or does not fit.
    void load_flash(const std::string& path, uint32_t offset);
    // The scene in front of the camera (--camera; by default the built-in test scene).
    void set_scene(std::unique_ptr<camera::FrameSource> scene);
    const BoardCamera& camera() const { return *m_camera; }

private:
    soc::DwApbUart& uart(unsigned n);  // UART n, 1-3
    soc::ByteSink sink(const std::string& port);
    soc::PinSink pins(const std::string& block, unsigned function0);
    void warn(const std::string& text);
    // Block `name` on the SoC's router at its place in the map (platform.devices).
    void map_block(const std::string& name, tlm::tlm_base_target_socket<>& target);
    // Block `name`'s PLIC source k (its first: 0).
    unsigned irq(const std::string& name, unsigned k = 0) const { return m_map.at(name).irq + k; }
    soc::PwmSink pwm(unsigned timer);
    void map_hart(const K210Config& cfg);
    void connect_timers();
    void connect_uarts();
    void connect_watchdogs();
    void connect_lcd(const LcdConfig& c);        // SPI0 and the panel (firmware_lcd.cpp)
    void connect_camera(const CameraConfig& c);  // the DVP and its sensor (firmware_camera.cpp)
    void connect_flash();                        // SPI3 and the flash (firmware_camera.cpp)
    uint32_t flash_frame(uint32_t ser, unsigned bits, uint32_t value);
    soc::DwSsi::FrameSink flash_sink();  // flash_frame, for SPI3
    void connect_harts();                // what ends a hart's busy-wait
    void lcd_frame(uint32_t ser, unsigned bits, uint32_t value, const sc_core::sc_time& at);
    soc::DwSsi::FrameSink lcd_sink();  // lcd_frame, for SPI0
    // SYSCTL's clocks: the blocks' clocks set from them at boot and after each write.
    void connect_clocks();
    void clocks_written(const sc_core::sc_time& at);
    void set_clock(soc::Clock c, double hz, const sc_core::sc_time& at);
    void layer_done();  // a KPU layer on a stopped AI clock is a warning

    SocMap m_map;
    std::function<void(const std::string&, const std::string&)> m_output;
    std::map<std::string, std::string> m_uart_text;
    std::string m_pin_log;
    std::vector<std::string> m_warnings;
    soc::Clocks m_clocks;
    std::string m_clock_log;
    std::string m_chip_reset;
    struct PwmLine {
        unsigned timer = 0, channel = 0;
        sc_core::sc_time at;
        std::string text;
    };
    std::vector<PwmLine> m_pwm;
    LcdConfig m_lcd_cfg;
    std::vector<LcdShot> m_lcd_frames;
    sc_core::sc_time m_lcd_written;  // the last pixel data
    sc_core::sc_time m_lcd_first;    // the frame's first pixel data
    bool m_lcd_used = false, m_lcd_new = true;
    size_t m_keep_every = 1, m_max_frames = 0;
    bool m_frames_done = false;
    std::unique_ptr<BoardCamera> m_camera;
};

}  // namespace npu::k210
