// The board's LCD on SPI0 (firmware_soc.h, docs/k210_lcd.md): SPI0's registers and its DMA
// request, and each frame on the wire to the panel as a command or data by the level of the pad
// that carries the panel's D/C line.
#include <fmt/format.h>

#include "platforms/k210/firmware/firmware_soc.h"

namespace npu::k210 {

using sc_core::sc_time;

void FirmwareSoc::connect_lcd(const LcdConfig& c) {
    m_lcd_cfg = c;
    map_block("spi0", spi0.regs.socket);
    k210.dmac.connect_request(FirmwareMap::kDmaSsi0Tx,
                              {[this] { return spi0.tx_room(); }, &spi0.dma_event()});
    k210.stats().attach(spi0.stats());
    lcd.on_frame = [this](const lcd::Frame& f) {
        m_lcd_frames.push_back({m_lcd_written, m_lcd_first, f});
        m_lcd_new = true;
        if (f.index % m_keep_every != 0) {
            m_lcd_frames.back().frame.rgb565 = {};  // not written: its pixels are not kept
        }
        if (m_max_frames != 0 && m_lcd_frames.size() >= m_max_frames && !m_frames_done) {
            m_frames_done = true;
            sc_core::sc_stop();
        }
    };
}

// A frame SPI0 sends with slave select `ser`: the panel takes its bytes (MSB first) when its
// select line is among them, as a command when the D/C pad is low. The firmware sets D/C before
// a transfer and keeps it until the transfer is done (nt35310.c), so its level when SPI0 takes
// the frame is its level on the wire.
void FirmwareSoc::lcd_frame(uint32_t ser, unsigned bits, uint32_t value, const sc_time& at) {
    if ((ser & (1u << m_lcd_cfg.cs)) == 0) {
        return;
    }
    if (bits % 8 != 0) {
        warn(
            fmt::format("SPI0 sent {}-bit frames to the LCD; it takes whole bytes (the rest of "
                        "such frames is dropped)",
                        bits));
    }
    m_lcd_used = true;
    const bool data = fpioa.pads().pad_level(m_lcd_cfg.dcx_pad);
    for (unsigned b = bits / 8; b-- > 0;) {
        const auto byte = static_cast<uint8_t>(value >> (8 * b));
        if (!data) {
            lcd.command(byte);
            continue;
        }
        const bool pixel = lcd.writing_pixels();  // else a command's parameter
        lcd.data(&byte, 1);
        if (pixel) {  // the frame's first and last pixel times
            m_lcd_first = m_lcd_new ? at : m_lcd_first;
            m_lcd_new = false;
            m_lcd_written = at;
        }
    }
}

soc::DwSsi::FrameSink FirmwareSoc::lcd_sink() {
    return [this](uint32_t ser, unsigned bits, uint32_t value, const sc_time& at) {
        lcd_frame(ser, bits, value, at);
        return uint32_t{0};  // the panel sends nothing back
    };
}

std::optional<FirmwareSoc::LcdShot> FirmwareSoc::lcd_last() const {
    if (!m_lcd_used) {
        return std::nullopt;
    }
    return LcdShot{m_lcd_written, m_lcd_first, lcd.current()};
}

}  // namespace npu::k210
