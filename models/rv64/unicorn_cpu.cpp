// The Cpu on Unicorn 2.0.1 (GPLv2: this file is its own library, npusim_rv64_unicorn, linked only
// where the firmware path needs it). What Unicorn does not do, done here (facts checked on
// Debian's 2.0.1: ../shared/reference/k210_firmware.md §2):
// - no trap entry: ecall and illegal instructions only call UC_HOOK_INTR (pc already + 4);
// - ebreak stops the run (UC_ERR_INSN_INVALID at the ebreak): semihosting is found from there;
// - 8-byte MMIO accesses would be split in two 4-byte ones: devices are RAM-backed with memory
//   hooks, which see whole accesses, and a read hook writes the value the load then returns;
// - stopping inside a memory hook re-executes the block: stops are deferred to the next block;
// - mcycle/minstret count host time: instructions are counted per translated block here;
// - mip's MEIP, MTIP and MSIP cannot be written through the CSR path (QEMU lets software set only
//   the delegable bits), yet firmware reads mip to see what is pending (the SDK's
//   handle_irq_m_ext claims only when MEIP reads 1): the adapter writes them into the CPU
//   state's mip word, found once by what a software-writable bit changes in a saved context.
//   QEMU is not told (no interrupt request), so trap entry stays the adapter's.
#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <unicorn/unicorn.h>

#include "models/rv64/cpu.h"
#include "sim/core/error.h"

namespace npu::rv64 {

namespace {

constexpr uint32_t kWfi = 0x10500073, kEbreak = 0x00100073;
constexpr uint32_t kSemiBefore = 0x01f01013, kSemiAfter = 0x40705013;  // slli/srai x0 markers
constexpr uint64_t kMipSsip = 1u << 1;
constexpr uint64_t kMipHardware = (1u << 3) | (1u << 7) | (1u << 11);  // MSIP, MTIP, MEIP

int csr_reg(Csr c) {
    switch (c) {
    case Csr::Mstatus: return UC_RISCV_REG_MSTATUS;
    case Csr::Mie: return UC_RISCV_REG_MIE;
    case Csr::Mip: return UC_RISCV_REG_MIP;
    case Csr::Mtvec: return UC_RISCV_REG_MTVEC;
    case Csr::Mepc: return UC_RISCV_REG_MEPC;
    case Csr::Mcause: return UC_RISCV_REG_MCAUSE;
    case Csr::Mtval: return UC_RISCV_REG_MTVAL;
    case Csr::Mscratch: return UC_RISCV_REG_MSCRATCH;
    case Csr::Fflags: return UC_RISCV_REG_FFLAGS;
    case Csr::Frm: return UC_RISCV_REG_FRM;
    case Csr::Fcsr: return UC_RISCV_REG_FCSR;
    }
    return UC_RISCV_REG_INVALID;
}

void check(uc_err e, const char* what) {
    if (e != UC_ERR_OK) {
        throw sim::Error(
            fmt::format("the RISC-V simulator (Unicorn): {}: {}", what, uc_strerror(e)));
    }
}

class UnicornCpu;

struct MappedDevice {
    UnicornCpu* owner = nullptr;
    uint64_t base = 0;
    Device device;
    std::vector<uint8_t> backing;
};

class UnicornCpu final : public Cpu {
public:
    UnicornCpu() {
        check(uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &m_uc), "open");
        check(uc_ctl_set_cpu_model(m_uc, UC_CPU_RISCV64_SIFIVE_U54), "CPU model");
        set_csr(Csr::Mstatus, csr(Csr::Mstatus) | 0x2000);  // FS = Initial: F and D usable
        uc_hook h;
        check(uc_hook_add(m_uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&on_block), this, 1, 0),
              "block hook");
        check(uc_hook_add(m_uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&on_intr), this, 1, 0),
              "interrupt hook");
        check(uc_hook_add(m_uc, &h, UC_HOOK_MEM_UNMAPPED, reinterpret_cast<void*>(&on_unmapped),
                          this, 1, 0),
              "unmapped hook");
        find_mip_word();
    }
    ~UnicornCpu() override {
        if (m_ctx != nullptr) {
            uc_context_free(m_ctx);
        }
        uc_close(m_uc);
    }
    UnicornCpu(const UnicornCpu&) = delete;
    UnicornCpu& operator=(const UnicornCpu&) = delete;

    void map_ram(uint64_t addr, uint64_t size, uint8_t* host) override {
        check(uc_mem_map_ptr(m_uc, addr, size, UC_PROT_ALL, host),
              fmt::format("map RAM at {:#x}, {} bytes", addr, size).c_str());
    }

    void map_device(uint64_t addr, uint64_t size, Device device) override {
        auto d = std::make_unique<MappedDevice>();
        d->owner = this, d->base = addr, d->device = std::move(device);
        d->backing.resize(size);
        check(uc_mem_map_ptr(m_uc, addr, size, UC_PROT_READ | UC_PROT_WRITE, d->backing.data()),
              fmt::format("map a device at {:#x}, {} bytes", addr, size).c_str());
        uc_hook h;
        check(uc_hook_add(m_uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE,
                          reinterpret_cast<void*>(&on_device), d.get(), addr, addr + size - 1),
              "device hook");
        d->device.read = d->device.read ? d->device.read : [](uint64_t, unsigned, uint64_t& v) {
            v = 0;
            return true;
        };
        d->device.write = d->device.write ? d->device.write : [](uint64_t, unsigned, uint64_t) {
            return true;
        };
        m_devices.push_back(std::move(d));
    }

    void watch(uint64_t addr, uint64_t size,
               std::function<void(uint64_t, unsigned, bool)> on_access) override {
        auto w = std::make_unique<Watch>(Watch{std::move(on_access)});
        uc_hook h;
        check(uc_hook_add(m_uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE,
                          reinterpret_cast<void*>(&on_watch), w.get(), addr, addr + size - 1),
              "watch hook");
        m_watches.push_back(std::move(w));
    }

    void stop_on_exceptions(bool on) override { m_stop_on_exceptions = on; }
    void set_pending(uint64_t bits) override {
        m_pending = bits;
        show_in_mip(bits & kMipHardware);
    }
    uint64_t run_cycles() const override { return m_done.cycles; }
    uint64_t run_instructions() const override { return m_done.instructions; }

    void set_cycle_model(const CycleModel& m) override {
        m_model = m;
        m_blocks.clear();
        m_recent.fill({});
    }

    // Once a debugger has stepped, runs count instructions the way a step does (Unicorn flushes
    // its translations, for seconds, each time runs switch between counted and not).
    RunResult run(uint64_t budget) override {
        budget = budget == 0 ? 1 : budget;
        return run_for(budget, m_counted ? budget : 0);
    }
    RunResult step() override {
        // Unicorn 2.0.1 counts instructions by a hook compiled into each translated block: a
        // block at pc translated before counting began would run on uncounted (with the old
        // budget of ~0, a step that never ended). Retranslate it; and budget 1: should the
        // count fail anyway, the next block's entry stops the run.
        uc_ctl_remove_cache(m_uc, pc(), pc() + 4);
        m_counted = true;
        return run_for(1, 1);
    }

    void add_breakpoint(uint64_t addr) override { m_breakpoints.insert(addr); }
    void remove_breakpoint(uint64_t addr) override { m_breakpoints.erase(addr); }

private:
    // `count` 0: up to `budget` instructions by the block hook; 1: exactly one instruction.
    RunResult run_for(uint64_t budget, uint64_t count) {
        m_budget = budget;
        m_done = {}, m_block = {}, m_result = {};
        m_stop_requested = false, m_stopped_by_us = false, m_exception = false;
        m_debug_stop = false, m_stepping = count != 0;
        m_skip_breakpoint = pc();
        const uc_err e = uc_emu_start(m_uc, pc(), 0, 0, count);
        if (m_debug_stop) {
            return to_breakpoint();
        }
        const uint64_t at = pc();
        RunResult r = m_result;
        // The instructions of the last block that retired before the stop (none: no block ran).
        const Cost last = m_block.cost.instructions == 0 || at < m_block.start
                              ? Cost{}
                              : cost_between(m_block.start, std::min(at, m_block.start + 4096));
        Cost done = m_done;
        done.instructions -= m_block.cost.instructions;
        done.cycles -= m_block.cost.cycles;
        if (m_exception) {
            set_pc(m_exception_pc);
            done.add(cost_between(m_block.start, m_exception_pc));  // those before the illegal one
        } else if (m_stopped_by_us) {
            done = m_done;  // stopped before the block it was about to count
        } else if (e == UC_ERR_INSN_INVALID || e == UC_ERR_EXCEPTION) {  // ebreak, pc at it
            done.add(last);
            r.stop =
                word(at - 4) == kSemiBefore && word(at) == kEbreak && word(at + 4) == kSemiAfter
                    ? Stop::Semihost
                    : Stop::Breakpoint;
        } else if (e != UC_ERR_OK && !(m_stop_requested && r.stop == Stop::Fault)) {
            r.stop = Stop::Fault;  // unmapped or protected: the address came through on_unmapped
        } else {
            done.add(last);  // a bus error at the block's end, wfi, or ran off
            if (!(m_stop_requested && r.stop == Stop::Fault)) {
                // uc_emu_start returns OK by itself only on wfi (EXCP_HLT)
                r.stop = word(at - 4) == kWfi ? Stop::Wfi : Stop::Budget;
            }
        }
        r.instructions = done.instructions;
        r.cycles = done.cycles;
        return r;
    }

public:
    void request_stop() override { m_stop_requested = true; }

    uint64_t pc() const override { return reg(UC_RISCV_REG_PC); }
    void set_pc(uint64_t v) override { set_reg(UC_RISCV_REG_PC, v); }
    uint64_t x(unsigned r) const override {
        return r == 0 ? 0 : reg(UC_RISCV_REG_X0 + static_cast<int>(r));
    }
    void set_x(unsigned r, uint64_t v) override {
        if (r != 0 && r < 32) {
            set_reg(UC_RISCV_REG_X0 + static_cast<int>(r), v);
        }
    }
    uint64_t f(unsigned r) const override {
        return r < 32 ? reg(UC_RISCV_REG_F0 + static_cast<int>(r)) : 0;
    }
    void set_f(unsigned r, uint64_t v) override {
        if (r < 32) {
            set_reg(UC_RISCV_REG_F0 + static_cast<int>(r), v);
        }
    }
    uint64_t csr(Csr c) const override { return reg(csr_reg(c)); }
    void set_csr(Csr c, uint64_t v) override { set_reg(csr_reg(c), v); }

private:
    struct Cost {
        uint64_t instructions = 0, cycles = 0;
        void add(const Cost& c) { instructions += c.instructions, cycles += c.cycles; }
    };
    struct Block {
        uint64_t start = 0;
        Cost cost;
    };
    struct Watch {
        std::function<void(uint64_t, unsigned, bool)> on_access;
    };

    uint64_t reg(int id) const {
        uint64_t v = 0;
        uc_reg_read(m_uc, id, &v);
        return v;
    }
    void set_reg(int id, uint64_t v) { uc_reg_write(m_uc, id, &v); }
    uint32_t word(uint64_t addr) const {
        uint32_t w = 0;
        return uc_mem_read(m_uc, addr, &w, 4) == UC_ERR_OK ? w : 0;
    }
    // Instructions (16- or 32-bit) from `from` up to, not including, `to`, and their cycles.
    Cost cost_between(uint64_t from, uint64_t to) const {
        Cost c;
        for (uint64_t a = from; a < to; ++c.instructions) {
            const uint32_t w = word(a);
            c.cycles += m_model.of(classify(w));
            a += insn_bytes(w);
        }
        return c;
    }
    // Each block's cost, computed once; a small direct-mapped cache in front of the map (a loop's
    // blocks hit it, every block of a run pays this).
    const Cost& block_cost(uint64_t addr, uint32_t size) {
        const uint64_t key = addr ^ (uint64_t{size} << 48);
        RecentBlock& slot = m_recent[(addr >> 1) % m_recent.size()];
        if (slot.cost != nullptr && slot.key == key) {
            return *slot.cost;
        }
        auto it = m_blocks.find(key);
        if (it == m_blocks.end()) {
            it = m_blocks.emplace(key, cost_between(addr, addr + size)).first;
        }
        slot = {key, &it->second};  // unordered_map nodes stay put
        return it->second;
    }

    static void on_block(uc_engine* uc, uint64_t addr, uint32_t size, void* self) {
        auto* c = static_cast<UnicornCpu*>(self);
        const Cost& n = c->block_cost(addr, size);
        const uint64_t done = c->m_done.instructions;
        if (done > 0 && c->m_pending != 0 && (c->csr(Csr::Mstatus) & kMstatusMie) != 0 &&
            (c->csr(Csr::Mie) & c->m_pending) != 0) {
            c->m_stop_requested = true;  // an interrupt became deliverable (csrs mstatus/mie)
        }
        if (c->breakpoint_in(addr, size)) {
            c->m_debug_stop = true, c->m_stopped_by_us = true;
            uc_emu_stop(uc);
            return;
        }
        if (c->m_stop_requested || (done > 0 && done + n.instructions > c->m_budget)) {
            if (!c->m_stop_requested) {
                c->m_result.stop = Stop::Budget;
            } else if (c->m_result.stop != Stop::Fault) {  // a bus error keeps its Fault
                c->m_result.stop = Stop::Requested;
            }
            c->m_stopped_by_us = true;
            uc_emu_stop(uc);
            return;
        }
        c->m_done.add(n);
        c->m_block = {addr, n};
    }

    // Inside a memory hook, pc is where the translated block began (Unicorn syncs it there), and
    // the registers are as the accessing instruction found them: the first load or store from pc
    // on whose address is `addr` made the access (an earlier one to the same address would have
    // been refused first). pc itself when none of the next 64 instructions matches.
    uint64_t accessing_pc(uint64_t addr) const {
        std::array<uint64_t, 32> regs{};
        for (unsigned r = 1; r < 32; ++r) {
            regs[r] = x(r);
        }
        const uint64_t start = pc();
        uint64_t a = start;
        for (int i = 0; i < 64; ++i) {
            const uint32_t w = word(a);
            if (const auto ea = access_address(w, regs); ea && *ea == addr) {
                return a;
            }
            a += insn_bytes(w);
        }
        return start;
    }

    // Breakpoints are found at block entry (a code hook would do it per instruction, and with
    // one installed Unicorn 2.0.1 re-executes an instruction when a block hook stops a run):
    // the first breakpoint inside the block being entered, other than the run's starting pc.
    bool breakpoint_in(uint64_t addr, uint32_t size) {
        if (m_breakpoints.empty() || m_stepping) {
            return false;
        }
        auto it = m_breakpoints.lower_bound(addr);
        if (it != m_breakpoints.end() && *it == m_skip_breakpoint) {
            ++it;
        }
        if (it == m_breakpoints.end() || *it >= addr + size) {
            return false;
        }
        m_debug_pc = *it;
        return true;
    }

    // Stopped before the block holding the breakpoint: run its instructions up to it (Unicorn
    // ends a block at `until`), unless an exception or the budget takes the run elsewhere.
    RunResult to_breakpoint() {
        RunResult r;
        if (pc() != m_debug_pc) {
            m_debug_stop = false, m_stopped_by_us = false, m_stop_requested = false;
            m_skip_breakpoint = ~uint64_t{0};
            const uint64_t pending = m_pending;
            m_pending = 0;
            m_stepping = true;  // no breakpoint checks: the prefix ends at the breakpoint
            uc_ctl_remove_cache(m_uc, pc(), m_debug_pc + 4);  // retranslate, ending at `until`
            uc_emu_start(m_uc, pc(), m_debug_pc, 0, 0);
            m_pending = pending;
        }
        r.stop = pc() == m_debug_pc ? Stop::Debug : Stop::Budget;
        r.instructions = m_done.instructions;
        r.cycles = m_done.cycles;
        return r;
    }

    // The offset of the CPU state's mip word in a saved context: where setting SSIP (bit 1, which
    // software may write) changes it.
    void find_mip_word() {
        check(uc_context_alloc(m_uc, &m_ctx), "context");
        const size_t n = uc_context_size(m_uc);
        std::vector<uint8_t> with(n), without(n);
        set_csr(Csr::Mip, kMipSsip);
        check(uc_context_save(m_uc, m_ctx), "context save");
        std::memcpy(with.data(), m_ctx, n);
        set_csr(Csr::Mip, 0);
        check(uc_context_save(m_uc, m_ctx), "context save");
        std::memcpy(without.data(), m_ctx, n);
        for (size_t i = 0; i + 4 <= n; i += 4) {
            uint32_t a = 0, b = 0;
            std::memcpy(&a, with.data() + i, 4);
            std::memcpy(&b, without.data() + i, 4);
            if (a == (b | kMipSsip) && a != b) {
                m_mip_offset = i;
                return;
            }
        }
        throw sim::Error("the RISC-V simulator (Unicorn): cannot find mip in the CPU state");
    }

    void show_in_mip(uint64_t bits) {
        if (bits == m_mip_shown) {
            return;
        }
        check(uc_context_save(m_uc, m_ctx), "context save");
        auto* raw = reinterpret_cast<uint8_t*>(m_ctx) + m_mip_offset;
        uint32_t mip = 0;
        std::memcpy(&mip, raw, 4);
        mip = static_cast<uint32_t>((mip & ~kMipHardware) | bits);
        std::memcpy(raw, &mip, 4);
        check(uc_context_restore(m_uc, m_ctx), "context restore");
        m_mip_shown = bits;
    }

    static void on_watch(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t,
                         void* user) {
        static_cast<Watch*>(user)->on_access(addr, static_cast<unsigned>(size),
                                             type == UC_MEM_WRITE);
    }

    static void on_intr(uc_engine* uc, uint32_t intno, void* self) {
        auto* c = static_cast<UnicornCpu*>(self);
        const uint64_t at = c->pc() - 4;  // Unicorn has already moved past it
        if (intno != 8 && c->m_stop_on_exceptions) {
            c->m_exception = true;
            c->m_result.stop = Stop::Exception;
            c->m_result.cause = intno;
            c->m_result.tval = intno == kCauseIllegal ? c->word(at) : 0;
            c->m_exception_pc = at;  // pc goes back to it once the run has stopped
            uc_emu_stop(uc);
        } else if (intno == 8) {
            c->trap(kCauseEcallM, at, 0);
        } else {
            c->trap(intno, at, intno == kCauseIllegal ? c->word(at) : 0);
        }
    }

    static bool on_unmapped(uc_engine*, uc_mem_type, uint64_t addr, int, int64_t, void* self) {
        static_cast<UnicornCpu*>(self)->m_result.fault_addr = addr;
        return false;
    }

    static void on_device(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t value,
                          void* user) {
        auto* d = static_cast<MappedDevice*>(user);
        UnicornCpu* c = d->owner;
        const uint64_t off = addr - d->base;
        const auto n = static_cast<unsigned>(size);
        bool ok = true;
        if (type == UC_MEM_READ) {
            uint64_t v = 0;
            ok = d->device.read(off, n, v);
            for (unsigned i = 0; i < n && off + i < d->backing.size(); ++i) {
                d->backing[off + i] = static_cast<uint8_t>(v >> (8 * i));
            }
        } else {
            ok = d->device.write(off, n, static_cast<uint64_t>(value));
        }
        if (!ok && !c->m_result.device_error) {  // the first refusal of the run is the cause
            c->m_result.stop = Stop::Fault;
            c->m_result.fault_addr = addr;
            c->m_result.device_error = true;
            c->m_result.fault_write = type != UC_MEM_READ;
            c->m_result.fault_size = n;
            c->m_result.fault_pc = c->accessing_pc(addr);
            c->m_stop_requested = true;
        }
    }

    uc_engine* m_uc = nullptr;
    std::vector<std::unique_ptr<MappedDevice>> m_devices;
    std::vector<std::unique_ptr<Watch>> m_watches;
    std::unordered_map<uint64_t, Cost> m_blocks;  // translated blocks' costs, by start and size
    struct RecentBlock {
        uint64_t key = 0;
        const Cost* cost = nullptr;
    };
    std::array<RecentBlock, 64> m_recent{};  // block_cost's cache
    CycleModel m_model;
    uint64_t m_budget = 0;
    Cost m_done;
    Block m_block;
    RunResult m_result;
    bool m_stop_requested = false, m_stopped_by_us = false, m_exception = false;
    bool m_stop_on_exceptions = false;
    uint64_t m_pending = 0;
    uc_context* m_ctx = nullptr;  // for show_in_mip
    size_t m_mip_offset = 0;
    uint64_t m_mip_shown = 0;
    uint64_t m_exception_pc = 0;
    std::set<uint64_t> m_breakpoints;
    uint64_t m_skip_breakpoint = ~uint64_t{0}, m_debug_pc = 0;
    bool m_debug_stop = false, m_counted = false, m_stepping = false;
};

}  // namespace

std::unique_ptr<Cpu> make_unicorn_cpu() {
    return std::make_unique<UnicornCpu>();
}

}  // namespace npu::rv64
