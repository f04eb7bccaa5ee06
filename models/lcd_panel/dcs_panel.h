// An LCD panel controller that speaks MIPI DCS over SPI with a D/C line, as the K210 boards'
// NT35310 (KD233) and ST7789 (Maix) are driven by the Kendryte demos' lcd.c / nt35310.c: bytes
// arrive as commands (D/C low) or their parameters and pixel data (D/C high). It keeps the panel's
// memory (GRAM, native columns x rows, RGB565) and the state the commands set: sleep, display on,
// pixel format (COLMOD), memory access control (MADCTL: MY, MX, MV, BGR), the column and page
// windows (CASET, RASET) and the write pointer of a memory write (RAMWR, RAMWRC). What the
// developer sees is a frame: the panel's memory as the application addresses it under the MADCTL
// in force, a snapshot taken each time a memory write over the whole screen begins (the demos
// draw the camera picture, then their boxes over it). Pure C++ (docs/k210_lcd.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npu::lcd {

struct PanelConfig {
    std::string controller = "nt35310";  // or "st7789": the same DCS commands here
    int columns = 240, rows = 320;       // native GRAM size
    // The panel's colour order: with MADCTL's BGR bit equal to it, RGB565 shows as sent; else red
    // and blue trade places. KD233's panel is BGR (its demos set the bit), Maix's ST7789 RGB.
    bool bgr = true;
};

// One picture as the application addresses the panel: width x height RGB565, row by row.
struct Frame {
    uint64_t index = 0;
    int width = 0, height = 0;
    std::vector<uint16_t> rgb565;
    bool displayed = false;  // display on and out of sleep when it was taken
};

class DcsPanel {
public:
    explicit DcsPanel(PanelConfig c = {});
    // A byte with D/C low: a command (its parameters follow with D/C high).
    void command(uint8_t cmd);
    // Bytes with D/C high: the current command's parameters or, after RAMWR, pixel data.
    void data(const uint8_t* bytes, size_t n);
    // The frame being drawn (what the screen shows now), and taking it as finished (the run's end).
    Frame current() const;
    // Whether data bytes now go to the panel's memory (after RAMWR/RAMWRC): pixels, not parameters.
    bool writing_pixels() const { return m_writing; }
    // Called with each finished frame.
    std::function<void(const Frame&)> on_frame;
    // Problems a firmware caused (an unmodelled command, pixels past the window), each once with
    // how often it happened.
    std::vector<std::string> warnings() const;

    // The state, for reports and tests.
    uint8_t madctl() const { return m_madctl; }
    bool sleeping() const { return m_sleep; }
    bool display_on() const { return m_on; }
    int width() const;  // the application's width under MADCTL (MV exchanges)
    int height() const;
    uint16_t gram(int column, int row) const;  // native coordinates

private:
    void parameter(uint8_t b);
    void pixel_byte(uint8_t b);
    void put_pixel(uint16_t rgb565);
    void warn(const std::string& what);
    void reset();
    size_t gram_index(int x, int y) const;  // the application's (x, y) under MADCTL

    PanelConfig m_c;
    std::vector<uint16_t> m_gram;
    uint8_t m_cmd = 0;
    std::vector<uint8_t> m_params;
    bool m_sleep = true, m_on = false, m_writing = false, m_written = false;
    uint8_t m_madctl = 0, m_colmod = 0x66;
    int m_xs = 0, m_xe = 0, m_ys = 0, m_ye = 0;  // windows, inclusive
    int m_x = 0, m_y = 0;                        // the write pointer
    bool m_past_end = false;
    int m_half = -1;  // the first byte of a pixel, or -1
    uint64_t m_frames = 0;
    std::vector<std::pair<std::string, uint64_t>> m_warnings;
};

}  // namespace npu::lcd
