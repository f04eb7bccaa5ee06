#include "sim/core/regs.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::sim {

const char* to_string(BankResult r) {
    switch (r) {
    case BankResult::OK: return "ok";
    case BankResult::ADDRESS_ERROR: return "no register at this offset";
    case BankResult::ACCESS_ERROR: return "access not allowed by the register's access rights";
    case BankResult::SIZE_ERROR: return "access size or alignment not supported";
    }
    return "?";
}

const char* to_string(Access a) {
    switch (a) {
    case Access::RW: return "RW";
    case Access::RO: return "RO";
    case Access::WO: return "WO";
    case Access::W1C: return "W1C";
    case Access::WO_RAZ: return "WO (reads 0)";
    case Access::RO_WI: return "RO (writes ignored)";
    }
    return "?";
}

Register::Register(Spec spec)
    : m_spec(std::move(spec)) {
    const unsigned s = m_spec.size_bytes;
    if (s != 1 && s != 2 && s != 4 && s != 8) {
        throw Error(
            fmt::format("register {}: size {} bytes, expected 1, 2, 4 or 8", m_spec.name, s));
    }
    reset();
}

BankResult Register::bus_read(uint64_t& data) {
    if (m_spec.access == Access::WO) {
        return BankResult::ACCESS_ERROR;
    }
    if (m_spec.access == Access::WO_RAZ) {
        data = 0;
        return BankResult::OK;
    }
    data = m_value;
    if (m_on_read) {
        data = m_on_read(m_value) & size_mask();
        s_effectful_reads += m_pure_read ? 0 : 1;
    }
    return BankResult::OK;
}

BankResult Register::bus_write(uint64_t data, uint64_t byte_lanes_mask) {
    const uint64_t mask = m_spec.write_mask & byte_lanes_mask & size_mask();
    switch (m_spec.access) {
    case Access::RO: return BankResult::ACCESS_ERROR;
    case Access::RO_WI: return BankResult::OK;
    case Access::RW:
    case Access::WO:
    case Access::WO_RAZ: m_value = (m_value & ~mask) | (data & mask); break;
    case Access::W1C: m_value &= ~(data & mask); break;
    }
    if (m_on_write) {
        m_on_write(data & size_mask());
    }
    return BankResult::OK;
}

RegisterBank::RegisterBank(std::string name, uint64_t size_bytes)
    : m_name(std::move(name))
    , m_size(size_bytes) {
}

void RegisterBank::add(Register& reg) {
    const uint64_t off = reg.offset();
    const uint64_t size = reg.size_bytes();
    if (off % size != 0) {
        throw Error(
            fmt::format("register bank {}: register {} at offset {:#x} is not aligned to its "
                        "size ({} bytes)",
                        m_name, reg.name(), off, size));
    }
    if (off >= m_size || size > m_size - off) {
        throw Error(
            fmt::format("register bank {}: register {} at offset {:#x} lies outside the bank "
                        "(size {:#x})",
                        m_name, reg.name(), off, m_size));
    }
    auto it = std::lower_bound(m_regs.begin(), m_regs.end(), off,
                               [](const Register* r, uint64_t o) { return r->offset() < o; });
    const Register* clash = nullptr;
    if (it != m_regs.end() && (*it)->offset() < off + size) {
        clash = *it;
    }
    if (it != m_regs.begin()) {
        const Register* prev = *(it - 1);
        if (prev->offset() + prev->size_bytes() > off) {
            clash = prev;
        }
    }
    if (clash != nullptr) {
        throw Error(
            fmt::format("register bank {}: register {} [{:#x}, {:#x}) overlaps register {} "
                        "[{:#x}, {:#x})",
                        m_name, reg.name(), off, off + size, clash->name(), clash->offset(),
                        clash->offset() + clash->size_bytes()));
    }
    m_regs.insert(it, &reg);
}

void RegisterBank::add_consecutive(std::initializer_list<Slot> slots) {
    bool first = true;
    uint64_t next = 0;
    for (const Slot& s : slots) {
        if (s.reg == nullptr) {
            next += s.reserved_bytes;
            continue;
        }
        if (first) {
            next = s.reg->offset();
            first = false;
        }
        if (s.reg->offset() != next) {
            throw Error(
                fmt::format("register bank {}: register {} is declared at offset {:#x} but its "
                            "place in the sequence is {:#x}",
                            m_name, s.reg->name(), s.reg->offset(), next));
        }
        add(*s.reg);
        next += s.reg->size_bytes();
    }
}

BankResult RegisterBank::decode(uint64_t offset, size_t len, Register*& reg) const {
    reg = find(offset);
    if (reg == nullptr) {
        return BankResult::ADDRESS_ERROR;
    }
    const uint64_t rel = offset - reg->offset();
    if (len == 0 || len > reg->size_bytes() - rel) {
        return BankResult::SIZE_ERROR;  // empty, or spans past the register's end
    }
    if (len != reg->size_bytes()) {
        const bool pow2 = (len & (len - 1)) == 0;
        if (!reg->allow_partial() || !pow2 || rel % len != 0) {
            return BankResult::SIZE_ERROR;
        }
    }
    return BankResult::OK;
}

Register* RegisterBank::find(uint64_t offset) const {
    auto it = std::upper_bound(m_regs.begin(), m_regs.end(), offset,
                               [](uint64_t o, const Register* r) { return o < r->offset(); });
    if (it == m_regs.begin()) {
        return nullptr;
    }
    Register* r = *(it - 1);
    return offset < r->offset() + r->size_bytes() ? r : nullptr;
}

namespace {
uint64_t load_le(const uint8_t* p, size_t len) {
    uint64_t v = 0;
    for (size_t i = 0; i < len; ++i) {
        v |= uint64_t{p[i]} << (8 * i);
    }
    return v;
}
void store_le(uint8_t* p, size_t len, uint64_t v) {
    for (size_t i = 0; i < len; ++i) {
        p[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}
uint64_t lanes(size_t len) {
    return len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
}
}  // namespace

BankResult RegisterBank::read(uint64_t offset, uint8_t* data, size_t len) {
    Register* reg = nullptr;
    if (BankResult r = decode(offset, len, reg); r != BankResult::OK) {
        return r;
    }
    uint64_t v = 0;
    if (BankResult r = reg->bus_read(v); r != BankResult::OK) {
        return r;
    }
    const unsigned shift = static_cast<unsigned>(8 * (offset - reg->offset()));
    store_le(data, len, v >> shift);
    return BankResult::OK;
}

BankResult RegisterBank::write(uint64_t offset, const uint8_t* data, size_t len) {
    Register* reg = nullptr;
    if (BankResult r = decode(offset, len, reg); r != BankResult::OK) {
        return r;
    }
    const unsigned shift = static_cast<unsigned>(8 * (offset - reg->offset()));
    const uint64_t lane_mask = lanes(len) << shift;
    // Partial write: the other bytes keep the register's current value (W1C: are written as 0).
    const bool no_keep = reg->access() == Access::W1C || reg->access() == Access::WO_RAZ;
    const uint64_t keep = no_keep ? 0 : reg->value() & ~lane_mask;
    const uint64_t merged = keep | ((load_le(data, len) << shift) & lane_mask);
    return reg->bus_write(merged, lane_mask);
}

size_t RegisterBank::debug_read(uint64_t offset, uint8_t* data, size_t len) const {
    size_t done = 0;
    while (done < len) {
        const Register* reg = find(offset + done);
        if (reg == nullptr) {
            break;
        }
        const uint64_t rel = offset + done - reg->offset();
        const size_t n =
            static_cast<size_t>(std::min<uint64_t>(reg->size_bytes() - rel, len - done));
        store_le(data + done, n, reg->peek() >> (8 * rel));
        done += n;
    }
    return done;
}

size_t RegisterBank::debug_write(uint64_t offset, const uint8_t* data, size_t len) {
    size_t done = 0;
    while (done < len) {
        Register* reg = find(offset + done);
        if (reg == nullptr) {
            break;
        }
        const uint64_t rel = offset + done - reg->offset();
        const size_t n =
            static_cast<size_t>(std::min<uint64_t>(reg->size_bytes() - rel, len - done));
        const uint64_t mask = lanes(n) << (8 * rel);
        reg->set_value((reg->value() & ~mask) | ((load_le(data + done, n) << (8 * rel)) & mask));
        done += n;
    }
    return done;
}

void RegisterBank::reset() {
    for (Register* r : m_regs) {
        r->reset();
    }
}

std::string RegisterBank::dump() const {
    std::string out;
    for (const Register* r : m_regs) {
        out += fmt::format("  {:#06x}  {:<24} {:<3} {} B  reset {:#x}  value {:#x}\n", r->offset(),
                           r->name(), to_string(r->access()), r->size_bytes(), r->reset_value(),
                           r->value());
    }
    return out;
}

}  // namespace npu::sim
