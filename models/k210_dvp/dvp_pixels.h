// What the K210's DVP writes to memory for one line the sensor sends: the display buffer (RGB565
// for the LCD) and the three planes of the "AI" buffer (R, G, B, one byte per pixel: a KPU input).
// Pure C++, no SystemC. docs/k210_camera.md, "What the DVP writes".
//
// Display buffer: the DVP shifts the incoming bytes into 32-bit words most significant byte
// first and stores the words little-endian, so each group of 4 stream bytes is reversed in
// memory. That is why the SDK sends the buffer to the LCD as 32-bit SPI frames (MSB first: the
// stream's order again) and why MaixPy reverses every word before using it as an image
// (sensor.c: "as data come in is in u32 LE format"). The AI planes are in natural raster order
// (MaixPy hands them to the KPU and, in grayscale, uses the first one as the image itself).
// RGB565 widens to RGB888 by repeating the top bits (r5 << 3 | r5 >> 2; assumed: the TRM does
// not say). YUV422 input (DVP_CFG_YUV_FORMAT) is taken as Y0 U Y1 V and converted with BT.601 full
// range (assumed); DVP_CFG_Y_FORMAT writes the Y bytes to the R plane only.
#pragma once

#include <cstdint>

namespace npu::dvp {

enum class Format { kRgb565, kYuv422, kY };  // DVP_CFG_FORMAT 0, 1, 3

// One line of `width` pixels (2 * width stream bytes) into `display` (2 * width bytes, may be
// null: output off) and `r`, `g`, `b` (width bytes each, may be null).
void convert_line(Format f, const uint8_t* stream, unsigned width, uint8_t* display, uint8_t* r,
                  uint8_t* g, uint8_t* b);

// RGB565 (high byte first on the wire) to 8-bit channels.
void widen565(uint16_t v, uint8_t* rgb);

}  // namespace npu::dvp
