// Fuzz entry points for the GDB stub (issue #33): the packet layer against a pretend target, and
// packet sequences against a running hart (Unicorn) whose breakpoints, steps and runs they drive.
// Each input is split into chunks as a socket would deliver them. Used by libFuzzer
// (fuzz_gdb_rsp.cpp, fuzz_gdb_session.cpp) and by seeded mutations in the rv64 tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/rv64/cpu.h"
#include "models/rv64/gdb_rsp.h"

namespace npu::fuzz {

// A pretend target: registers in a map, 4 KiB of memory at 0x1000, breakpoints counted.
struct GdbPretend {
    std::map<unsigned, uint64_t> regs;
    std::vector<uint8_t> mem = std::vector<uint8_t>(4096);
    size_t breakpoints = 0;
    rv64::GdbTarget target() {
        rv64::GdbTarget t;
        t.reg = [this](unsigned n) {
            return regs[n];
        };
        t.set_reg = [this](unsigned n, uint64_t v) {
            regs[n] = v;
        };
        t.read_mem = [this](uint64_t a, uint8_t* d, size_t n) {
            if (a < 0x1000 || a - 0x1000 > mem.size() || n > mem.size() - (a - 0x1000)) {
                return false;
            }
            std::memcpy(d, mem.data() + (a - 0x1000), n);
            return true;
        };
        t.write_mem = [this](uint64_t a, const uint8_t* s, size_t n) {
            if (a < 0x1000 || a - 0x1000 > mem.size() || n > mem.size() - (a - 0x1000)) {
                return false;
            }
            std::memcpy(mem.data() + (a - 0x1000), s, n);
            return true;
        };
        t.add_breakpoint = [this](uint64_t) {
            ++breakpoints;
        };
        t.remove_breakpoint = [this](uint64_t) {
            --breakpoints;
        };
        return t;
    }
};

// The input's chunks: each starts with a length byte (1..256 bytes follow).
inline std::vector<std::string> gdb_chunks(const uint8_t* data, size_t size) {
    std::vector<std::string> out;
    for (size_t at = 0; at < size;) {
        const size_t n = std::min<size_t>(size - at - 1, size_t{data[at]} + 1);
        out.emplace_back(reinterpret_cast<const char*>(data) + at + 1, n);
        at += 1 + n;
    }
    return out;
}

inline void gdb_packets(const uint8_t* data, size_t size) {
    GdbPretend p;
    rv64::GdbServer s(p.target());
    for (const std::string& chunk : gdb_chunks(data, size)) {
        rv64::GdbAction a = rv64::GdbAction::None;
        s.feed(chunk, a);
        if (s.buffered() > rv64::kGdbMaxPacket + 512 || p.breakpoints > rv64::kGdbMaxBreakpoints) {
            __builtin_trap();  // a bound broken
        }
    }
}

// A running hart: a loop of 16- and 32-bit instructions at 0x80000000 (riscv64-unknown-elf-as:
// li a0,0; 1: c.addi a0,1; addi a1,a0,1; c.addi a1,2; zext.b a2,a1; j 1b) in 64 KiB of RAM.
inline void gdb_session(const uint8_t* data, size_t size) {
    constexpr uint64_t kBase = 0x80000000;
    static const uint8_t kLoop[] = {0x01, 0x45, 0x05, 0x05, 0x93, 0x05, 0x15, 0x00,
                                    0x89, 0x05, 0x13, 0xf6, 0xf5, 0x0f, 0xd5, 0xbf};
    std::vector<uint8_t> ram(64 << 10);
    std::memcpy(ram.data(), kLoop, sizeof kLoop);
    std::unique_ptr<rv64::Cpu> cpu = rv64::make_unicorn_cpu();
    cpu->map_ram(kBase, ram.size(), ram.data());
    cpu->set_pc(kBase);
    rv64::GdbTarget t;
    t.reg = [&](unsigned n) -> uint64_t {
        return n < 32 ? cpu->x(n) : n == 32 ? cpu->pc() : n < 65 ? cpu->f(n - 33) : 0;
    };
    t.set_reg = [&](unsigned n, uint64_t v) {
        n < 32    ? cpu->set_x(n, v)
        : n == 32 ? cpu->set_pc(v)
        : n < 65  ? cpu->set_f(n - 33, v)
                  : void();
    };
    const auto inside = [&](uint64_t a, size_t n) {
        return a >= kBase && a - kBase <= ram.size() && n <= ram.size() - (a - kBase);
    };
    t.read_mem = [&](uint64_t a, uint8_t* d, size_t n) {
        return inside(a, n) && (std::memcpy(d, ram.data() + (a - kBase), n), true);
    };
    t.write_mem = [&](uint64_t a, const uint8_t* s, size_t n) {
        return inside(a, n) && (std::memcpy(ram.data() + (a - kBase), s, n), true);
    };
    t.add_breakpoint = [&](uint64_t a) {
        cpu->add_breakpoint(a);
    };
    t.remove_breakpoint = [&](uint64_t a) {
        cpu->remove_breakpoint(a);
    };
    t.instruction_at = [&](uint64_t a) {
        uint64_t at = kBase;
        while (at < a && at < kBase + sizeof kLoop) {
            at += (ram[at - kBase] & 3) == 3 ? 4u : 2u;
        }
        return inside(a, 2) && a % 2 == 0 && (at == a || a >= kBase + sizeof kLoop);
    };
    rv64::GdbServer s(t);
    for (const std::string& chunk : gdb_chunks(data, size)) {
        rv64::GdbAction a = rv64::GdbAction::None;
        s.feed(chunk, a);
        if (a == rv64::GdbAction::Continue || a == rv64::GdbAction::Step) {
            const rv64::RunResult r = a == rv64::GdbAction::Step ? cpu->step() : cpu->run(5000);
            if (r.stop != rv64::Stop::Budget && r.stop != rv64::Stop::Debug) {
                cpu->set_pc(kBase);  // the firmware path would end the run here: start again
            }
        } else if (a == rv64::GdbAction::Kill || a == rv64::GdbAction::Detach) {
            return;
        }
    }
}

}  // namespace npu::fuzz
