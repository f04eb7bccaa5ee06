#include "models/spi_flash/w25q.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::flash {

namespace {
constexpr uint8_t kWel = 0x02;
}  // namespace

W25q::W25q()
    : m_mem(kBytes, 0xff) {
}

void W25q::load(uint32_t offset, const std::vector<uint8_t>& bytes) {
    if (offset > kBytes || bytes.size() > kBytes - offset) {
        throw sim::Error(fmt::format("{} bytes at offset {:#x} do not fit the 16 MiB flash",
                                     bytes.size(), offset));
    }
    std::copy(bytes.begin(), bytes.end(), m_mem.begin() + offset);
}

uint32_t W25q::address() const {
    if (m_cmd.size() < 4) {
        return 0;
    }
    return (uint32_t{m_cmd[1]} << 16 | uint32_t{m_cmd[2]} << 8 | m_cmd[3]) % kBytes;
}

uint8_t W25q::exchange(uint8_t mosi) {
    m_cmd.push_back(mosi);
    return answer(m_cmd.size() - 1);
}

uint8_t W25q::answer(size_t pos) {
    if (pos == 0) {
        return 0xff;  // the opcode's own byte: nothing out yet
    }
    static const uint8_t kJedec[] = {0xef, 0x40, 0x18};
    switch (m_cmd[0]) {
    case 0x9f: return pos <= 3 ? kJedec[pos - 1] : 0xff;
    case 0x90: return pos < 4 ? 0xff : (pos % 2 == 0 ? 0xef : 0x17);
    case 0xab: return pos < 4 ? 0xff : 0x17;
    case 0x05: return static_cast<uint8_t>(m_sr[0] | (m_wel ? kWel : 0));
    case 0x35: return m_sr[1];
    case 0x15: return m_sr[2];
    case 0x03: return pos < 4 ? 0xff : m_mem[(address() + pos - 4) % kBytes];
    case 0x0b: return pos < 5 ? 0xff : m_mem[(address() + pos - 5) % kBytes];
    case 0x3b:
    case 0x6b:
    case 0xbb:
    case 0xeb:
    case 0x32:
        warn(
            fmt::format("the flash's dual/quad command {:#04x} is not modelled (standard reads "
                        "and programs are)",
                        m_cmd[0]));
        return 0xff;
    default: return 0xff;
    }
}

void W25q::deselect() {
    if (!m_cmd.empty()) {
        finish();
    }
    m_cmd.clear();
}

void W25q::finish() {
    const uint8_t op = m_cmd[0];
    const size_t n = m_cmd.size();
    const bool needs_wel = op == 0x01 || op == 0x31 || op == 0x11 || op == 0x02 || op == 0x20 ||
                           op == 0x52 || op == 0xd8 || op == 0xc7 || op == 0x60;
    if (needs_wel && !m_wel) {
        return;  // ignored without the write-enable latch, as on the chip
    }
    const auto erase = [this](uint32_t size) {
        const uint32_t base = address() / size * size;
        std::fill(m_mem.begin() + base, m_mem.begin() + base + size, uint8_t{0xff});
    };
    switch (op) {
    case 0x06:
    case 0x50: m_wel = true; return;
    case 0x04: m_wel = false; return;
    case 0x01:
        if (n >= 2)
            m_sr[0] = static_cast<uint8_t>(m_cmd[1] & 0xfc);
        if (n >= 3)
            m_sr[1] = m_cmd[2];
        break;
    case 0x31:
        if (n >= 2)
            m_sr[1] = m_cmd[1];
        break;
    case 0x11:
        if (n >= 2)
            m_sr[2] = m_cmd[1];
        break;
    case 0x02:
        for (size_t i = 4; i < n; ++i) {  // within the 256-byte page, wrapping
            const uint32_t a =
                (address() & ~0xffu) | ((address() + static_cast<uint32_t>(i - 4)) & 0xffu);
            m_mem[a] &= m_cmd[i];
        }
        break;
    case 0x20: erase(4096); break;
    case 0x52: erase(32768); break;
    case 0xd8: erase(65536); break;
    case 0xc7:
    case 0x60: std::fill(m_mem.begin(), m_mem.end(), uint8_t{0xff}); break;
    case 0x66:
    case 0x99:
    case 0xb9:
    case 0xab:
    case 0x9f:
    case 0x90:
    case 0x05:
    case 0x35:
    case 0x15:
    case 0x03:
    case 0x0b:
    case 0x3b:
    case 0x6b:
    case 0xbb:
    case 0xeb:
    case 0x32: return;  // reads, and the dual/quad commands answer() warned about
    default: warn(fmt::format("the flash's command {:#04x} is not modelled (ignored)", op)); return;
    }
    m_wel = false;  // a program, erase or status write clears the latch
}

void W25q::warn(const std::string& text) {
    if (std::find(m_warnings.begin(), m_warnings.end(), text) == m_warnings.end()) {
        m_warnings.push_back(text);
    }
}

}  // namespace npu::flash
