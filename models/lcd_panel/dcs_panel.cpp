#include "models/lcd_panel/dcs_panel.h"

#include <algorithm>

#include <fmt/format.h>

namespace npu::lcd {

namespace {

// The DCS commands modelled: how many parameter bytes each takes (-1: pixel data follows).
struct Command {
    uint8_t code;
    const char* name;
    int params;
};
constexpr Command kCommands[] = {
    {0x00, "NOP", 0},     {0x01, "SWRESET", 0}, {0x10, "SLPIN", 0},   {0x11, "SLPOUT", 0},
    {0x12, "PTLON", 0},   {0x13, "NORON", 0},   {0x20, "INVOFF", 0},  {0x21, "INVON", 0},
    {0x26, "GAMSET", 1},  {0x28, "DISPOFF", 0}, {0x29, "DISPON", 0},  {0x2A, "CASET", 4},
    {0x2B, "RASET", 4},   {0x2C, "RAMWR", -1},  {0x34, "TEOFF", 0},   {0x35, "TEON", 1},
    {0x36, "MADCTL", 1},  {0x38, "IDMOFF", 0},  {0x39, "IDMON", 0},   {0x3A, "COLMOD", 1},
    {0x3C, "RAMWRC", -1}, {0x44, "STE", 2},     {0x51, "WRDISBV", 1}, {0x53, "WRCTRLD", 1},
};

const Command* find(uint8_t code) {
    for (const Command& c : kCommands) {
        if (c.code == code) {
            return &c;
        }
    }
    return nullptr;
}

constexpr uint8_t kMy = 0x80, kMx = 0x40, kMv = 0x20, kBgr = 0x08;

}  // namespace

DcsPanel::DcsPanel(PanelConfig c)
    : m_c(std::move(c))
    , m_gram(static_cast<size_t>(m_c.columns) * static_cast<size_t>(m_c.rows), 0) {
    reset();
}

void DcsPanel::reset() {
    m_sleep = true, m_on = false, m_writing = false;
    m_madctl = 0, m_colmod = 0x66;  // 18 bits per pixel after reset
    m_xs = 0, m_xe = m_c.columns - 1, m_ys = 0, m_ye = m_c.rows - 1;
    m_params.clear();
    m_half = -1;
}

int DcsPanel::width() const {
    return (m_madctl & kMv) != 0 ? m_c.rows : m_c.columns;
}

int DcsPanel::height() const {
    return (m_madctl & kMv) != 0 ? m_c.columns : m_c.rows;
}

uint16_t DcsPanel::gram(int column, int row) const {
    return m_gram[static_cast<size_t>(row) * static_cast<size_t>(m_c.columns) +
                  static_cast<size_t>(column)];
}

size_t DcsPanel::gram_index(int x, int y) const {
    int c = (m_madctl & kMv) != 0 ? y : x;
    int r = (m_madctl & kMv) != 0 ? x : y;
    c = (m_madctl & kMx) != 0 ? m_c.columns - 1 - c : c;
    r = (m_madctl & kMy) != 0 ? m_c.rows - 1 - r : r;
    return static_cast<size_t>(r) * static_cast<size_t>(m_c.columns) + static_cast<size_t>(c);
}

void DcsPanel::warn(const std::string& what) {
    for (auto& [w, n] : m_warnings) {
        if (w == what) {
            ++n;
            return;
        }
    }
    m_warnings.emplace_back(what, 1);
}

std::vector<std::string> DcsPanel::warnings() const {
    std::vector<std::string> v;
    for (const auto& [w, n] : m_warnings) {
        v.push_back(n == 1 ? w : fmt::format("{} ({} times)", w, n));
    }
    return v;
}

void DcsPanel::command(uint8_t cmd) {
    m_cmd = cmd;
    m_params.clear();
    m_writing = false;
    m_half = -1;
    const Command* c = find(cmd);
    if (c == nullptr) {
        warn(fmt::format("{}: command {:#04x} is not modelled (its parameters are ignored)",
                         m_c.controller, cmd));
        return;
    }
    switch (cmd) {
    case 0x01: reset(); break;
    case 0x10: m_sleep = true; break;
    case 0x11: m_sleep = false; break;
    case 0x28: m_on = false; break;
    case 0x29: m_on = true; break;
    case 0x2C:
    case 0x3C: {
        const bool whole = m_xs == 0 && m_ys == 0 && m_xe == width() - 1 && m_ye == height() - 1;
        if (cmd == 0x2C && whole && m_written) {  // a new picture begins: the last one is done
            const Frame f = current();
            ++m_frames;
            m_written = false;
            if (on_frame) {
                on_frame(f);
            }
        }
        if (cmd == 0x2C) {
            m_x = m_xs, m_y = m_ys, m_past_end = false;
        }
        if ((m_colmod & 0x07) != 0x05) {
            warn(
                fmt::format("{}: pixel format COLMOD {:#04x}: only 16-bit RGB565 (0x55) is "
                            "modelled; the data is read as RGB565",
                            m_c.controller, m_colmod));
        }
        m_writing = true;
        break;
    }
    default: break;
    }
}

void DcsPanel::data(const uint8_t* bytes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (m_writing) {
            pixel_byte(bytes[i]);
        } else {
            parameter(bytes[i]);
        }
    }
}

void DcsPanel::parameter(uint8_t b) {
    const Command* c = find(m_cmd);
    if (c == nullptr) {
        return;  // warned when the command came
    }
    if (static_cast<int>(m_params.size()) >= c->params) {
        warn(fmt::format("{}: {} takes {} parameter bytes; further bytes ignored", m_c.controller,
                         c->name, c->params));
        return;
    }
    m_params.push_back(b);
    if (static_cast<int>(m_params.size()) != c->params) {
        return;
    }
    const auto pair = [&](size_t i) {
        return (int{m_params[i]} << 8) | m_params[i + 1];
    };
    const auto window = [&](int& s, int& e, int limit, const char* what) {
        s = pair(0), e = pair(2);
        if (s > e || e >= limit) {
            warn(fmt::format("{}: {} {}..{} outside 0..{}: clamped", m_c.controller, what, s, e,
                             limit - 1));
            e = std::min(e, limit - 1);
            s = std::min(s, e);
        }
    };
    switch (m_cmd) {
    case 0x2A: window(m_xs, m_xe, width(), "CASET columns"); break;
    case 0x2B: window(m_ys, m_ye, height(), "RASET rows"); break;
    case 0x36: m_madctl = b; break;
    case 0x3A: m_colmod = b; break;
    default: break;
    }
}

void DcsPanel::pixel_byte(uint8_t b) {
    if (m_half < 0) {
        m_half = b;
        return;
    }
    put_pixel(static_cast<uint16_t>((m_half << 8) | b));  // RGB565, high byte first
    m_half = -1;
}

void DcsPanel::put_pixel(uint16_t rgb565) {
    if (m_past_end) {
        warn(fmt::format("{}: pixels written past the end of the window", m_c.controller));
        return;
    }
    if (m_x < width() && m_y < height()) {
        m_gram[gram_index(m_x, m_y)] = rgb565;
        m_written = true;
    }
    if (++m_x > m_xe) {
        m_x = m_xs;
        if (++m_y > m_ye) {
            m_past_end = true;
        }
    }
}

Frame DcsPanel::current() const {
    Frame f;
    f.index = m_frames;
    f.width = width(), f.height = height();
    f.displayed = m_on && !m_sleep;
    f.rgb565.resize(static_cast<size_t>(f.width) * static_cast<size_t>(f.height));
    const bool swap = ((m_madctl & kBgr) != 0) != m_c.bgr;
    for (int y = 0; y < f.height; ++y) {
        for (int x = 0; x < f.width; ++x) {
            uint16_t v = m_gram[gram_index(x, y)];
            if (swap) {  // red and blue trade places
                v = static_cast<uint16_t>((v & 0x07E0) | (v >> 11) | ((v & 0x1F) << 11));
            }
            f.rgb565[static_cast<size_t>(y) * static_cast<size_t>(f.width) +
                     static_cast<size_t>(x)] = v;
        }
    }
    return f;
}

}  // namespace npu::lcd
