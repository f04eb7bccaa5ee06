// OV2640 (the demos' ov2640.c): 8-bit register addresses in two banks selected by 0xFF (bit 0: 1
// the sensor bank, 0 the DSP bank). Sensor bank: PIDH/PIDL 0x0A/0x0B = 0x26/0x42, MIDH/MIDL
// 0x1C/0x1D = 0x7F/0xA2; COM7 0x12 (bit 7 resets every register, bits 6:4 the mode: 0 UXGA, 1 CIF,
// 4 SVGA); CLKRC 0x11 (bits 5:0 divide XCLK by n+1, bit 7 doubles it); COM2 0x09 bit 4 standby;
// REG04 0x04 (bit 7 mirror, bit 6 flip); dummy pixels REG2A[7:4]:REG2B, dummy lines FRARH:FRARL
// 0x47:0x46. DSP bank: ZMOW/ZMOH/ZMHH 0x5A/0x5B/0x5C the output size in units of 4 pixels;
// IMAGE_MODE 0xDA (bits 3:2: 0 YUV422, 2 RGB565; bit 0 swaps the bytes). docs/k210_camera.md.
#include <fmt/format.h>

#include "models/camera/sensor.h"

namespace npu::camera {

namespace {
constexpr uint32_t kBank = 0xff, kSensor = 0x100;  // storage key of a sensor-bank register
constexpr uint32_t kCom7 = kSensor | 0x12, kClkrc = kSensor | 0x11, kCom2 = kSensor | 0x09;
constexpr uint32_t kReg04 = kSensor | 0x04, kReg2a = kSensor | 0x2a, kReg2b = kSensor | 0x2b;
constexpr uint32_t kFrarl = kSensor | 0x46, kFrarh = kSensor | 0x47;
constexpr uint32_t kZmow = 0x5a, kZmoh = 0x5b, kZmhh = 0x5c, kImageMode = 0xda;

// A mode's line in pixel clocks (Tp), its lines per frame and the active (exposed) lines among
// them. SVGA: Tline = 1190 Tp, Tframe = 672 Tline (OmniVision's OV2640 frame-rate note: 30.01 fps
// at 24 MHz with CLKRC 0). UXGA 1922 x 1248 and CIF 1190 x 336: assumed from the same timing
// diagram's family (UXGA 15 fps and CIF 60 fps at 24 MHz, as the datasheet rates them).
struct Mode {
    const char* name;
    unsigned line_tp, lines, active;
};
constexpr Mode kUxga{"UXGA", 1922, 1248, 1200}, kSvga{"SVGA", 1190, 672, 600},
    kCif{"CIF", 1190, 336, 300};

class Ov2640 : public Sensor {
public:
    Ov2640() { reset(); }
    std::string name() const override { return "ov2640"; }
    uint8_t address() const override { return 0x60; }
    unsigned address_bits() const override { return 8; }
    Stream stream(double xclk_hz) const override;

protected:
    void reset() override {
        m_regs = {{kBank, 0x00},          {kSensor | 0x0a, 0x26}, {kSensor | 0x0b, 0x42},
                  {kSensor | 0x1c, 0x7f}, {kSensor | 0x1d, 0xa2}, {kCom7, 0x00},
                  {kClkrc, 0x00},         {kReg04, 0x20},         {kZmow, 0x90},
                  {kZmoh, 0x2c},          {kZmhh, 0x05},          {kImageMode, 0x00}};
    }
    uint32_t key(uint32_t reg) const override {
        return reg == kBank || (read(kBank) & 1) == 0 ? reg : kSensor | reg;
    }
    void written(uint32_t k, uint8_t v) override {
        if (k == kCom7 && (v & 0x80) != 0) {
            const uint8_t bank = read(kBank);
            reset();
            m_regs[kBank] = bank;
        }
    }

private:
    const Mode& mode() const {
        const unsigned m = (read(kCom7) >> 4) & 0x7;
        return m == 4 ? kSvga : m == 1 ? kCif : kUxga;
    }
    PixelOrder order(std::string& unmodelled) const;
};

PixelOrder Ov2640::order(std::string& unmodelled) const {
    const uint8_t im = read(kImageMode);
    const unsigned fmt = (im >> 2) & 0x3;
    const bool swap = (im & 1) != 0;
    if (fmt == 2) {
        return swap ? PixelOrder::kRgb565Low : PixelOrder::kRgb565;
    }
    if (fmt != 0) {
        unmodelled = (fmt::format(
            "the OV2640's IMAGE_MODE 0x{:02x} asks for RAW output, which is not modelled; it "
            "sends RGB565 here",
            im));
        return PixelOrder::kRgb565;
    }
    return swap ? PixelOrder::kUyvy : PixelOrder::kYuyv;
}

Stream Ov2640::stream(double xclk_hz) const {
    Stream s;
    const uint8_t zmhh = read(kZmhh);
    s.width = ((zmhh & 0x3u) << 8 | read(kZmow)) * 4u;
    s.height = (((zmhh >> 2) & 0x1u) << 8 | read(kZmoh)) * 4u;
    s.order = order(s.unmodelled);
    s.mirror = (read(kReg04) & 0x80) != 0;
    s.flip = (read(kReg04) & 0x40) != 0;
    s.on = (read(kCom2) & 0x10) == 0 && xclk_hz > 0 && s.width > 0 && s.height > 0;
    const uint8_t clkrc = read(kClkrc);
    const double tp = ((clkrc & 0x3f) + 1.0) / (xclk_hz * ((clkrc & 0x80) != 0 ? 2.0 : 1.0));
    const Mode& m = mode();
    const unsigned dummy_px = ((read(kReg2a) >> 4u) << 8u) | read(kReg2b);
    const unsigned dummy_lines = (unsigned{read(kFrarh)} << 8u) | read(kFrarl);
    const double tline = (m.line_tp + dummy_px) * tp;
    s.frame_s = (m.lines + dummy_lines) * tline;
    // The output lines spread over the active lines; half the blanking before them (assumed).
    s.first_line_s = (m.lines + dummy_lines - m.active) / 2.0 * tline;
    s.line_s = s.height == 0 ? 0 : m.active * tline / s.height;
    s.timing = fmt::format(
        "OV2640 {}: ({} + {} dummy lines) x ({} + {}) Tp, Tp = (CLKRC[5:0] + 1) / XCLK = {:.3f} ns "
        "-> {:.3f} ms per frame",
        m.name, m.lines, dummy_lines, m.line_tp, dummy_px, tp * 1e9, s.frame_s * 1e3);
    return s;
}
}  // namespace

std::unique_ptr<Sensor> make_ov2640() {
    return std::make_unique<Ov2640>();
}

}  // namespace npu::camera
