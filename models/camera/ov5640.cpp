// OV5640 (the demos' ov5640.c): 16-bit register addresses. CHIP_ID 0x300A/0x300B = 0x56/0x40;
// SYSTEM_CTRL0 0x3008 (bit 7 resets every register, bit 6 powers down); the PLL 0x3034-0x3037,
// 0x3108; TIMING DVPHO/DVPVO 0x3808-0x380B (output size), HTS/VTS 0x380C-0x380F; TIMING_TC_REG20/21
// 0x3820/0x3821 (bits 2:1 flip, mirror); FORMAT CONTROL 0x4300 (bits 7:4: 3 YUV422, 6 RGB565;
// bits 3:0 the order). docs/k210_camera.md.
#include <fmt/format.h>

#include "models/camera/sensor.h"
#include "sim/core/error.h"

namespace npu::camera {

std::unique_ptr<Sensor> make_ov2640();

namespace {
constexpr uint32_t kCtrl0 = 0x3008, kPll0 = 0x3034, kPll1 = 0x3035, kPll2 = 0x3036, kPll3 = 0x3037;
constexpr uint32_t kRootDiv = 0x3108, kTc20 = 0x3820, kTc21 = 0x3821, kFormat = 0x4300;

class Ov5640 : public Sensor {
public:
    Ov5640() { reset(); }
    std::string name() const override { return "ov5640"; }
    uint8_t address() const override { return 0x78; }
    unsigned address_bits() const override { return 16; }
    Stream stream(double xclk_hz) const override;

protected:
    // The ID and the full-size mode's timing (2592 x 1944 in 2844 x 1968: the Linux driver's
    // mode table); the PLL as the datasheet's defaults.
    void reset() override {
        m_regs = {{0x300a, 0x56}, {0x300b, 0x40}, {kCtrl0, 0x02}, {kPll0, 0x1a},
                  {kPll1, 0x11},  {kPll2, 0x69},  {kPll3, 0x03},  {kRootDiv, 0x16}};
        set16(0x3808, 2592);
        set16(0x380a, 1944);
        set16(0x380c, 2844);
        set16(0x380e, 1968);
        m_regs[kTc20] = 0x40;
        m_regs[kTc21] = 0x00;
        m_regs[kFormat] = 0xf8;
    }
    void written(uint32_t k, uint8_t v) override {
        if (k == kCtrl0 && (v & 0x80) != 0) {
            reset();
            m_regs[kCtrl0] = static_cast<uint8_t>(v & 0x7f);
        }
    }

private:
    void set16(uint32_t k, unsigned v) {
        m_regs[k] = static_cast<uint8_t>(v >> 8);
        m_regs[k + 1] = static_cast<uint8_t>(v);
    }
    unsigned get16(uint32_t k) const { return unsigned{read(k)} << 8 | read(k + 1); }
    PixelOrder order(std::string& unmodelled) const;
    double pclk(double xclk_hz, std::string& how) const;
};

PixelOrder Ov5640::order(std::string& unmodelled) const {
    const uint8_t f = read(kFormat);
    if (f >> 4 == 0x6 && (f & 0xf) <= 1) {
        return (f & 0xf) == 1 ? PixelOrder::kRgb565 : PixelOrder::kBgr565;
    }
    if (f >> 4 == 0x3 && (f & 0xf) <= 3) {
        const PixelOrder yuv[] = {PixelOrder::kYuyv, PixelOrder::kYvyu, PixelOrder::kUyvy,
                                  PixelOrder::kVyuy};
        return yuv[f & 0xf];
    }
    unmodelled = (fmt::format(
        "the OV5640's FORMAT CONTROL 0x4300 = 0x{:02x} is not a modelled format (RGB565 0x60/0x61, "
        "YUV422 0x30-0x33); it sends RGB565 here",
        f));
    return PixelOrder::kRgb565;
}

// PCLK = XCLK / prediv x multiplier / sysdiv / pll_rdiv / bit_div / pclk_rdiv: the clock tree the
// Linux driver documents (ov5640.c, ov5640_get_sysclk and ov5640_calc_pclk). The manual PCLK
// divider (0x3824 with 0x460C bit 1) is not modelled.
double Ov5640::pclk(double xclk_hz, std::string& how) const {
    const unsigned prediv = std::max(1u, unsigned{read(kPll3)} & 0xfu);
    const unsigned mult = read(kPll2);
    const unsigned sysdiv = (read(kPll1) >> 4) == 0 ? 16u : unsigned{read(kPll1)} >> 4;
    const unsigned rdiv = ((read(kPll3) >> 4) & 1u) + 1u;
    const unsigned bits = read(kPll0) & 0xfu;
    const double bit_div = bits == 8 ? 2.0 : bits == 10 ? 2.5 : 1.0;
    const unsigned pclk_div = 1u << ((read(kRootDiv) >> 4) & 3u);
    how = fmt::format("XCLK {:.3f} MHz / {} x {} / {} / {} / {} / {}", xclk_hz / 1e6, prediv, mult,
                      sysdiv, rdiv, bit_div, pclk_div);
    return xclk_hz / prediv * mult / sysdiv / rdiv / bit_div / pclk_div;
}

Stream Ov5640::stream(double xclk_hz) const {
    Stream s;
    s.width = get16(0x3808) & 0xfffu;
    s.height = get16(0x380a) & 0x7ffu;
    s.order = order(s.unmodelled);
    s.flip = (read(kTc20) & 0x06) != 0;
    s.mirror = (read(kTc21) & 0x06) != 0;
    std::string how;
    const double hz = pclk(xclk_hz, how);
    const unsigned hts = get16(0x380c), vts = std::max(get16(0x380e), s.height);
    s.on = (read(kCtrl0) & 0x40) == 0 && hz > 0 && s.width > 0 && s.height > 0;
    // Two PCLK per pixel (8-bit DVP, 16 bits per pixel): the Linux driver's rate = HTS x VTS x 16 x
    // fps / 8.
    s.frame_s = hz > 0 ? 2.0 * hts * vts / hz : 0;
    s.line_s = vts == 0 ? 0 : s.frame_s / vts;
    s.first_line_s = (vts - s.height) / 2.0 * s.line_s;  // half the blanking first (assumed)
    s.timing = fmt::format(
        "OV5640: HTS {} x VTS {} x 2 / PCLK, PCLK = {} = {:.3f} MHz -> {:.3f} ms "
        "per frame",
        hts, vts, how, hz / 1e6, s.frame_s * 1e3);
    return s;
}
}  // namespace

std::unique_ptr<Sensor> make_sensor(const std::string& model) {
    if (model == "ov2640") {
        return make_ov2640();
    }
    if (model == "ov5640") {
        return std::make_unique<Ov5640>();
    }
    throw sim::Error(fmt::format("unknown camera sensor '{}': ov2640 or ov5640", model));
}

}  // namespace npu::camera
