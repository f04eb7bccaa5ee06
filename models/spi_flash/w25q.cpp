#include "models/spi_flash/w25q.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::flash {

namespace {
constexpr uint8_t kWel = 0x02;
// Commands with nothing to do when they end: resets, power-down, IDs, status and data reads, and
// the dual/quad commands answer() warned about.
constexpr std::array<uint8_t, 16> kNoEffect{0x66, 0x99, 0xb9, 0xab, 0x9f, 0x90, 0x05, 0x35,
                                            0x15, 0x03, 0x0b, 0x3b, 0x6b, 0xbb, 0xeb, 0x32};
// Commands the write-enable latch must allow: status writes, program, erases.
constexpr std::array<uint8_t, 9> kNeedsLatch{0x01, 0x31, 0x11, 0x02, 0x20, 0x52, 0xd8, 0xc7, 0x60};
template <size_t N>
bool contains(const std::array<uint8_t, N>& a, uint8_t op) {
    return std::find(a.begin(), a.end(), op) != a.end();
}
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
    if (op == 0x06 || op == 0x50) {
        m_wel = true;
        return;
    }
    if (op == 0x04) {
        m_wel = false;
        return;
    }
    if (contains(kNoEffect, op)) {
        return;
    }
    if (!m_wel) {
        if (!contains(kNeedsLatch, op)) {
            warn(fmt::format("the flash's command {:#04x} is not modelled (ignored)", op));
        }
        return;  // ignored without the write-enable latch, as on the chip
    }
    if (!write(op)) {
        warn(fmt::format("the flash's command {:#04x} is not modelled (ignored)", op));
        return;
    }
    m_wel = false;  // a program, erase or status write clears the latch
}

// A status write, program or erase (the latch set); false for another opcode.
bool W25q::write(uint8_t op) {
    const size_t n = m_cmd.size();
    const auto erase = [this](uint32_t size) {
        const uint32_t base = address() / size * size;
        std::fill(m_mem.begin() + base, m_mem.begin() + base + size, uint8_t{0xff});
    };
    switch (op) {
    case 0x01:
        m_sr[0] = n >= 2 ? static_cast<uint8_t>(m_cmd[1] & 0xfc) : m_sr[0];
        m_sr[1] = n >= 3 ? m_cmd[2] : m_sr[1];
        return true;
    case 0x31: m_sr[1] = n >= 2 ? m_cmd[1] : m_sr[1]; return true;
    case 0x11: m_sr[2] = n >= 2 ? m_cmd[1] : m_sr[2]; return true;
    case 0x02:
        for (size_t i = 4; i < n; ++i) {  // within the 256-byte page, wrapping
            const uint32_t a =
                (address() & ~0xffu) | ((address() + static_cast<uint32_t>(i - 4)) & 0xffu);
            m_mem[a] &= m_cmd[i];
        }
        return true;
    case 0x20: erase(4096); return true;
    case 0x52: erase(32768); return true;
    case 0xd8: erase(65536); return true;
    case 0xc7:
    case 0x60: std::fill(m_mem.begin(), m_mem.end(), uint8_t{0xff}); return true;
    default: return false;
    }
}

void W25q::warn(const std::string& text) {
    if (std::find(m_warnings.begin(), m_warnings.end(), text) == m_warnings.end()) {
        m_warnings.push_back(text);
    }
}

}  // namespace npu::flash
