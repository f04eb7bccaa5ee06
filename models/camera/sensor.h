// Camera sensors on the K210's SCCB bus as the Kendryte demos program them (ov2640.c, ov5640.c):
// the OmniVision OV2640 (8-bit register addresses, two banks) and OV5640 (16-bit addresses). Their
// ID registers answer with the real IDs, every register write is kept and read back, and what the
// firmware programs decides the picture the sensor streams: output size, pixel format (RGB565 or
// YUV422 and its byte order), mirror and flip, software reset and power-down, and the frame time
// from the clock tree and the timing registers. The scene itself comes from the user (a photo, a
// folder, a video: frame_source.h). Pure C++, no SystemC. docs/k210_camera.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::camera {

// How the sensor sends each pixel on its 8 data lines.
enum class PixelOrder {
    kRgb565,     // two bytes, {r[4:0], g[5:3]} then {g[2:0], b[4:0]}
    kRgb565Low,  // the same two bytes, low one first
    kBgr565,     // {b[4:0], g[5:3]} then {g[2:0], r[4:0]}
    kYuyv,       // YUV422, BT.601 (full range), Y0 U Y1 V
    kUyvy,       // U Y0 V Y1
    kYvyu,       // Y0 V Y1 U
    kVyuy,       // V Y0 U Y1
};

// What the sensor is programmed to send, and when.
struct Stream {
    unsigned width = 0, height = 0;
    PixelOrder order = PixelOrder::kRgb565;
    bool mirror = false, flip = false;
    bool on = false;          // out of power-down / standby
    double frame_s = 0;       // VSYNC to VSYNC
    double first_line_s = 0;  // VSYNC to the first output line
    double line_s = 0;        // between output lines
    std::string timing;       // the formula with its numbers, for the report
    std::string unmodelled;   // a programmed format sent as RGB565 instead (render warns)
};

class Sensor {
public:
    virtual ~Sensor() = default;
    virtual std::string name() const = 0;
    // The 8-bit SCCB address of a write (the demos' OV2640_ADDR 0x60, OV5640_ADDR 0x78).
    virtual uint8_t address() const = 0;
    virtual unsigned address_bits() const = 0;  // register address width: 8 or 16

    // An SCCB write transaction's bytes after the device address: the register address (one or
    // two bytes, high first), then data bytes, each to the next register. A two-byte
    // transaction with 16-bit addresses or a one-byte one with 8-bit addresses only sets the
    // address a following read uses.
    void sccb_write(const std::vector<uint8_t>& bytes);
    // An SCCB read transaction: the register at the last address written.
    uint8_t sccb_read() const { return read(key(m_address)); }

    // A register by its storage key: its address (the OV2640's sensor bank: 0x100 + address).
    uint8_t read(uint32_t key) const;
    void write(uint32_t key, uint8_t value);

    // The RESETB pin pulled low: every register back to its power-on value.
    void hardware_reset() { reset(); }

    // The stream for an external clock of `xclk_hz` on the sensor's XCLK pin.
    virtual Stream stream(double xclk_hz) const = 0;
    // The bytes the sensor sends for one frame of `scene` (u8 (1, 3, H, W) RGB, any size):
    // resized to the output size (OpenCV INTER_LINEAR, as sim::resize_linear), mirrored or flipped
    // as programmed, in the programmed pixel order.
    std::vector<uint8_t> render(const sim::Tensor& scene, const Stream& s) const;
    // Registers written that the model does not act on are kept silently; what changes the picture
    // and is not modelled (an unsupported format) is a warning, each once.
    const std::vector<std::string>& warnings() const { return m_warnings; }

protected:
    virtual void reset() = 0;                                 // the power-on register values
    virtual uint32_t key(uint32_t reg) const { return reg; }  // a bus address's storage key
    virtual void written(uint32_t reg, uint8_t v) = 0;        // after `reg` took `v`
    void warn(const std::string& text) const;
    std::map<uint32_t, uint8_t> m_regs;

private:
    uint32_t m_address = 0;
    mutable std::vector<std::string> m_warnings;
};

// "ov2640" or "ov5640"; throws sim::Error naming the known ones otherwise.
std::unique_ptr<Sensor> make_sensor(const std::string& model);

// One RGB pixel in a pixel order's bytes (`out` receives 2 bytes; YUV orders need the pair:
// encode_pair).
void encode_pair(PixelOrder order, const uint8_t* rgb0, const uint8_t* rgb1, uint8_t* out4);

}  // namespace npu::camera
