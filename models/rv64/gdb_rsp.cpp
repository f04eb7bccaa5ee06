#include "models/rv64/gdb_rsp.h"

#include <cstdio>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace npu::rv64 {

namespace {

constexpr const char* kAbiNames[32] = {"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2",
                                       "fp",   "s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
                                       "a6",   "a7", "s2",  "s3",  "s4", "s5", "s6", "s7",
                                       "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

// The target description GDB reads (qXfer:features:read:target.xml): the RISC-V cpu and fpu
// features with GDB's register names, so GDB accepts a hard-float (lp64d) ELF.
std::string target_xml() {
    std::string x =
        "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
        "<target version=\"1.0\"><architecture>riscv:rv64</architecture>"
        "<feature name=\"org.gnu.gdb.riscv.cpu\">";
    for (unsigned i = 0; i < 32; ++i) {
        x += fmt::format("<reg name=\"{}\" bitsize=\"64\" type=\"{}\" regnum=\"{}\"/>",
                         kAbiNames[i], i == 2 ? "data_ptr" : "int", i);
    }
    x += "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"32\"/></feature>"
         "<feature name=\"org.gnu.gdb.riscv.fpu\">";
    for (unsigned i = 0; i < 32; ++i) {
        x += fmt::format("<reg name=\"f{}\" bitsize=\"64\" type=\"ieee_double\" regnum=\"{}\"/>", i,
                         33 + i);
    }
    x += "<reg name=\"fflags\" bitsize=\"32\" type=\"int\" regnum=\"65\"/>"
         "<reg name=\"frm\" bitsize=\"32\" type=\"int\" regnum=\"66\"/>"
         "<reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"67\"/></feature></target>";
    return x;
}

unsigned reg_bytes(unsigned regnum) {
    return regnum >= 65 ? 4 : 8;
}

std::string hex_le(uint64_t v, unsigned bytes) {
    std::string s;
    for (unsigned i = 0; i < bytes; ++i) {
        s += fmt::format("{:02x}", (v >> (8 * i)) & 0xff);
    }
    return s;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

// Bytes of a hex string; false on an odd length or a non-hex digit.
bool unhex(std::string_view s, std::vector<uint8_t>& out) {
    if (s.size() % 2 != 0) {
        return false;
    }
    out.clear();
    for (size_t i = 0; i < s.size(); i += 2) {
        const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        out.push_back(static_cast<uint8_t>(hi * 16 + lo));
    }
    return true;
}

uint64_t le_value(const std::vector<uint8_t>& b, size_t at, unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes && at + i < b.size(); ++i) {
        v |= uint64_t{b[at + i]} << (8 * i);
    }
    return v;
}

// A hex number at the start of `s` (1 to 16 digits: no overflow); `s` moves past it.
bool hex_number(std::string_view& s, uint64_t& v) {
    size_t n = 0;
    v = 0;
    for (; n < s.size() && hex_digit(s[n]) >= 0; ++n) {
        if (n == 16) {
            return false;  // over 64 bits
        }
        v = v << 4 | static_cast<uint64_t>(hex_digit(s[n]));
    }
    s.remove_prefix(n);
    return n > 0;
}

// "addr,len" (hex) with what follows in `rest`; false if malformed.
bool addr_len(std::string_view s, uint64_t& addr, uint64_t& len, std::string_view* rest = nullptr) {
    if (!hex_number(s, addr) || s.empty() || s[0] != ',') {
        return false;
    }
    s.remove_prefix(1);
    if (!hex_number(s, len)) {
        return false;
    }
    if (rest != nullptr) {
        *rest = s;
    }
    return true;
}

// The register number of a p/P packet (hex up to `end`), if it is one of ours.
bool register_number(std::string_view s, unsigned& n) {
    uint64_t v = 0;
    if (!hex_number(s, v) || !(s.empty() || s[0] == '=') || v >= kGdbRegs) {
        return false;
    }
    n = static_cast<unsigned>(v);
    return true;
}

constexpr size_t kMaxMemory = (kGdbMaxPacket - 32) / 2;  // what one m/M packet moves at most

}  // namespace

std::string rsp_frame(const std::string& payload) {
    unsigned sum = 0;
    for (char c : payload) {
        sum += static_cast<uint8_t>(c);
    }
    return fmt::format("${}#{:02x}", payload, sum & 0xff);
}

GdbServer::GdbServer(GdbTarget target)
    : m_t(std::move(target)) {
}

std::string GdbServer::exit_reply(int code) {
    return rsp_frame(fmt::format("W{:02x}", static_cast<unsigned>(code) & 0xff));
}

std::string GdbServer::fmt_stop(int signal) {
    return fmt::format("S{:02x}", signal);
}

std::string GdbServer::feed(const std::string& bytes, GdbAction& action) {
    action = GdbAction::None;
    m_in += bytes;
    std::string out;
    size_t at = 0;  // consumed so far: erased once at the end (linear in the input)
    while (at < m_in.size() && action == GdbAction::None) {
        const char c = m_in[at];
        if (c == '\x03') {
            m_interrupted = true;
            ++at;
            continue;
        }
        if (c != '$') {
            ++at;  // acks (+/-) and noise between packets
            continue;
        }
        const size_t from = at + 1 + m_scanned;
        const size_t hash = m_in.find('#', from);
        if (hash == std::string::npos || hash + 2 >= m_in.size()) {
            m_scanned = (hash == std::string::npos ? m_in.size() : hash) - at - 1;
            if (m_scanned > kGdbMaxPacket) {  // too long: dropped, resynchronise at the next '$'
                out += '-';
                const size_t next = m_in.find('$', at + 1);
                at = next == std::string::npos ? m_in.size() : next;
                m_scanned = 0;
                continue;
            }
            break;  // incomplete: wait for more bytes
        }
        m_scanned = 0;
        const std::string payload = m_in.substr(at + 1, hash - at - 1);
        const std::string sum = m_in.substr(hash + 1, 2);
        at = hash + 3;
        if (payload.size() > kGdbMaxPacket ||
            (rsp_frame(payload).substr(payload.size() + 2) != sum && !m_no_ack)) {
            out += '-';  // too long, or a checksum mismatch: the debugger resends
            continue;
        }
        if (!m_no_ack) {
            out += '+';
        }
        const std::string reply = handle(payload, action);
        if (action == GdbAction::None || action == GdbAction::Kill) {
            out += rsp_frame(reply);
        }
    }
    m_in.erase(0, at);
    return out;
}

std::string GdbServer::handle(const std::string& p, GdbAction& action) {
    if (p.empty()) {
        return "";
    }
    switch (p[0]) {
    case '?': return fmt_stop(m_last_signal);
    case 'g': return registers();
    case 'G': return set_registers(p.substr(1));
    case 'p': {
        unsigned n = 0;
        return register_number(std::string_view(p).substr(1), n) && p.find('=') == std::string::npos
                   ? hex_le(m_t.reg(n), reg_bytes(n))
                   : "E01";
    }
    case 'P': {
        const size_t eq = p.find('=');
        std::vector<uint8_t> b;
        unsigned n = 0;
        if (eq == std::string::npos || !register_number(std::string_view(p).substr(1), n) ||
            !unhex(p.substr(eq + 1), b) || b.size() != reg_bytes(n)) {
            return "E01";
        }
        m_t.set_reg(n, le_value(b, 0, reg_bytes(n)));
        return "OK";
    }
    case 'm': return memory(p.substr(1));
    case 'M': return write_memory(p.substr(1));
    case 'Z':
    case 'z': return breakpoint(p);
    case 'c':
    case 's':
    case 'v': return resume(p, action);
    case 'k': action = GdbAction::Kill; return "OK";
    case 'D': action = GdbAction::Detach; return "OK";
    case 'H': return "OK";  // one thread: any thread is it
    case 'T': return "OK";
    case 'q':
    case 'Q': return query(p);
    default: return "";  // not supported: the debugger falls back
    }
}

std::string GdbServer::query(const std::string& p) {
    if (p.rfind("qSupported", 0) == 0) {
        return fmt::format("PacketSize={:x};qXfer:features:read+;QStartNoAckMode+", kGdbMaxPacket);
    }
    if (p == "QStartNoAckMode") {
        m_no_ack = true;
        return "OK";
    }
    if (p.rfind("qXfer:features:read:target.xml:", 0) == 0) {
        uint64_t off = 0, len = 0;
        if (!addr_len(std::string_view(p).substr(31), off, len)) {
            return "E01";
        }
        const std::string x = target_xml();
        if (off >= x.size()) {
            return "l";
        }
        const std::string part = x.substr(off, len);
        return (off + part.size() >= x.size() ? "l" : "m") + part;
    }
    if (p == "qAttached") {
        return "1";
    }
    if (p == "qC") {
        return "QC1";
    }
    if (p == "qfThreadInfo") {
        return "m1";
    }
    if (p == "qsThreadInfo") {
        return "l";
    }
    return "";
}

std::string GdbServer::registers() const {
    std::string s;
    for (unsigned n = 0; n <= 32; ++n) {  // x0-x31, pc; the others by p
        s += hex_le(m_t.reg(n), 8);
    }
    return s;
}

std::string GdbServer::set_registers(const std::string& hex) {
    std::vector<uint8_t> b;
    if (!unhex(hex, b)) {
        return "E01";
    }
    for (unsigned n = 0; n <= 32 && 8 * n + 8 <= b.size(); ++n) {
        m_t.set_reg(n, le_value(b, 8 * n, 8));
    }
    return "OK";
}

std::string GdbServer::memory(const std::string& args) {
    uint64_t addr = 0, len = 0;
    if (!addr_len(args, addr, len) || len > kMaxMemory) {
        return "E01";
    }
    if (len == 0) {
        return "";  // nothing to read (and no null buffer handed to the target)
    }
    std::vector<uint8_t> b(len);
    if (!m_t.read_mem(addr, b.data(), b.size())) {
        return "E14";  // EFAULT
    }
    std::string s;
    for (uint8_t v : b) {
        s += fmt::format("{:02x}", v);
    }
    return s;
}

std::string GdbServer::write_memory(const std::string& args) {
    uint64_t addr = 0, len = 0;
    std::string_view rest;
    std::vector<uint8_t> b;
    if (!addr_len(args, addr, len, &rest) || rest.empty() || rest[0] != ':' ||
        !unhex(rest.substr(1), b) || b.size() != len) {
        return "E01";
    }
    if (len == 0) {
        return "OK";
    }
    return m_t.write_mem(addr, b.data(), b.size()) ? "OK" : "E14";
}

// Z0/Z1 (software and hardware breakpoints: both are the hart's breakpoints), z0/z1.
std::string GdbServer::breakpoint(const std::string& p) {
    if (p.size() < 3 || (p[1] != '0' && p[1] != '1') || p[2] != ',') {
        return "";  // watchpoints: not supported
    }
    uint64_t addr = 0, kind = 0;
    std::string_view rest;
    if (!addr_len(std::string_view(p).substr(3), addr, kind, &rest) || !rest.empty()) {
        return "E01";
    }
    if (p[0] == 'z') {
        if (m_breakpoints.erase(addr) != 0) {
            m_t.remove_breakpoint(addr);
        }
        return "OK";
    }
    const bool starts = m_t.instruction_at ? m_t.instruction_at(addr) : addr % 2 == 0;
    if (!starts || (m_breakpoints.size() >= kGdbMaxBreakpoints && m_breakpoints.count(addr) == 0)) {
        return "E01";  // not an instruction's first byte, or one too many
    }
    if (m_breakpoints.insert(addr).second) {
        m_t.add_breakpoint(addr);
    }
    return "OK";
}

std::string GdbServer::resume(const std::string& p, GdbAction& action) {
    if (p == "vCont?") {
        return "vCont;c;s";
    }
    const bool step = p[0] == 's' || p.rfind("vCont;s", 0) == 0;
    const bool cont = p[0] == 'c' || p.rfind("vCont;c", 0) == 0;
    if (!step && !cont) {
        return "";  // other v packets (vMustReplyEmpty, vFile...): not supported
    }
    action = step ? GdbAction::Step : GdbAction::Continue;
    m_last_signal = kSigTrap;
    return "";
}

}  // namespace npu::rv64
