// A GDB remote-serial-protocol server for the RV64 hart (GDB's "Remote Protocol" appendix):
// packets in, replies out, over whatever carries the bytes (a TCP socket in npusim run --gdb).
// What it answers: the target description (riscv:rv64, x0-x31, pc, f0-f31, fflags/frm/fcsr),
// registers (g/G, p/P), memory (m/M), breakpoints (Z0/Z1, z0/z1), continue and step (c, s,
// vCont), the stop reason (?), kill, detach, no-ack mode, threads (one). Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

namespace npu::rv64 {

// What the server debugs. Registers by GDB number: 0-31 x, 32 pc, 33-64 f, 65 fflags, 66 frm,
// 67 fcsr.
struct GdbTarget {
    std::function<uint64_t(unsigned regnum)> reg;
    std::function<void(unsigned regnum, uint64_t value)> set_reg;
    std::function<bool(uint64_t addr, uint8_t* dst, size_t n)> read_mem;
    std::function<bool(uint64_t addr, const uint8_t* src, size_t n)> write_mem;
    std::function<void(uint64_t addr)> add_breakpoint;
    std::function<void(uint64_t addr)> remove_breakpoint;
    // Whether an instruction starts at `addr` (a breakpoint elsewhere would never be reached and
    // would hide the ones after it); absent: every even address.
    std::function<bool(uint64_t addr)> instruction_at;
};

enum class GdbAction { None, Continue, Step, Kill, Detach };

constexpr unsigned kGdbRegs = 68;
constexpr size_t kGdbMaxPacket = 0x8000;    // PacketSize: the longest packet taken (bytes)
constexpr size_t kGdbMaxBreakpoints = 256;  // more are refused (E01), as a debug unit's are
// GDB's signal numbers (gdb/signals.def): ^C, a breakpoint or step, a kill, a spent time budget.
constexpr int kSigInt = 2, kSigTrap = 5, kSigKill = 9, kSigXcpu = 24;

// "$payload#checksum".
std::string rsp_frame(const std::string& payload);

class GdbServer {
public:
    explicit GdbServer(GdbTarget target);

    // Bytes from the debugger. Returns the bytes to send back (acks and replies); `action` is
    // set by a packet that resumes or ends the target (its reply comes later: stop_reply).
    // A ^C (0x03) sets interrupted(). Work is linear in the bytes fed; a packet longer than
    // kGdbMaxPacket is dropped (answered '-') and the input resynchronises at the next '$'.
    std::string feed(const std::string& bytes, GdbAction& action);
    bool interrupted() const { return m_interrupted; }
    size_t buffered() const { return m_in.size(); }  // bytes held for an incomplete packet
    void clear_interrupt() { m_interrupted = false; }
    // The target stopped with `signal` (kSigTrap: breakpoint or step, kSigInt: ^C).
    std::string stop_reply(int signal) { return rsp_frame(fmt_stop(signal)); }
    // The target ended with exit code `code`.
    std::string exit_reply(int code);

private:
    std::string handle(const std::string& packet, GdbAction& action);
    std::string query(const std::string& packet);
    std::string registers() const;
    std::string set_registers(const std::string& hex);
    std::string memory(const std::string& args);
    std::string write_memory(const std::string& args);
    std::string breakpoint(const std::string& packet);
    std::string resume(const std::string& packet, GdbAction& action);
    static std::string fmt_stop(int signal);

    GdbTarget m_t;
    std::string m_in;
    size_t m_scanned = 0;  // bytes of m_in (after its '$') already searched for '#'
    std::set<uint64_t> m_breakpoints;
    bool m_no_ack = false;
    bool m_interrupted = false;
    int m_last_signal = kSigTrap;
};

}  // namespace npu::rv64
