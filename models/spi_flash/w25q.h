// A Winbond W25Q128JV serial NOR flash (16 MiB) on an SPI bus, as the Kendryte demos' w25qxx.c
// and boot loaders drive it in standard SPI: byte by byte while selected, each command ended by
// the chip select going high. JEDEC ID (0x9F: EF 40 18), manufacturer/device ID (0x90: EF 17),
// release power-down / device ID (0xAB: 17), status registers 1-3 (0x05, 0x35, 0x15), write
// enable/disable (0x06, 0x50, 0x04), status writes (0x01 with one or two bytes, 0x31, 0x11), read
// (0x03) and fast read (0x0B, one dummy byte), page program (0x02, within its 256-byte page,
// bits only cleared), sector/block/chip erase (0x20, 0x52, 0xD8, 0xC7/0x60), power-down (0xB9)
// and reset (0x66, 0x99). Programs, erases and status writes need the write-enable latch and take
// effect when the command ends; they complete at once (the busy bit never reads 1: assumed, no
// firmware here waits on the flash's timing). Dual and quad commands are not modelled: a
// warning, and 0xFF in. Erased contents are 0xFF; an image can be loaded at an offset. Pure C++.
// docs/k210_camera.md ("The flash on SPI3").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::flash {

class W25q {
public:
    static constexpr uint32_t kBytes = 16u << 20;
    W25q();

    // `bytes` at `offset`; throws sim::Error when they do not fit.
    void load(uint32_t offset, const std::vector<uint8_t>& bytes);
    // One byte each way while selected: what the flash sends back for `mosi`.
    uint8_t exchange(uint8_t mosi);
    void deselect();  // chip select high: the command ends (and takes effect)

    uint8_t status(unsigned n) const { return m_sr[n - 1]; }  // status register 1-3
    const std::vector<uint8_t>& contents() const { return m_mem; }
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    uint32_t address() const;    // the command's 24-bit address (bytes 1-3)
    uint8_t answer(size_t pos);  // the byte out at position `pos` of the command (0: the opcode)
    void finish();               // a write command's effect, at deselect
    bool write(uint8_t op);      // finish()'s status writes, programs and erases
    void warn(const std::string& text);

    std::vector<uint8_t> m_mem;
    std::vector<uint8_t> m_cmd;            // the bytes in since the chip select went low
    uint8_t m_sr[3] = {0x00, 0x00, 0x60};  // SR3: the output drive strength bits at reset
    bool m_wel = false;
    std::vector<std::string> m_warnings;
};

}  // namespace npu::flash
