#include "platforms/ascend/ascend_platform.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/aipp/aipp_regs.h"
#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::ascend {

using sim::to_ps;

aipp::AippConfig engine_config(const AscendConfig& cfg, const aipp::AippTiming& timing,
                               const aipp::Fidelity& fidelity) {
    aipp::AippConfig e;
    e.timing = timing;
    e.fidelity = fidelity;
    e.l1_base_addr = cfg.l1().base_addr;
    e.l1_size_bytes = cfg.l1().memory.size_bytes;
    e.register_latency_ns = cfg.register_latency_ns;
    return e;
}

AscendPlatform::AscendPlatform(sc_core::sc_module_name name, const AscendConfig& cfg,
                               const aipp::AippConfig& engine)
    : sc_module(name)
    , gm("gm", cfg.gm().memory)
    , l1("l1", cfg.l1().memory)
    , aipp("aipp", engine)
    , scalar("scalar", cfg.platform.bus)
    , m_cfg(cfg) {
    sim::set_global_quantum(sc_core::sc_time(cfg.platform.quantum_ns, sc_core::SC_NS));
    scalar.socket.bind(router.target_socket);
    aipp.gm.socket.bind(router.target_socket);
    aipp.l1.socket.bind(router.target_socket);
    // Each window is checked against the others by the router (overlaps are sim::Errors).
    router.map("gm", cfg.gm().base_addr, cfg.gm().memory.size_bytes, router.bind_target(gm.socket));
    router.map("l1", cfg.l1().base_addr, cfg.l1().memory.size_bytes, router.bind_target(l1.socket));
    router.map("aipp", cfg.aipp_base_addr, aipp::regs::kBlockBytes,
               router.bind_target(aipp.regs.socket));
    SC_HAS_PROCESS(AscendPlatform);
    SC_THREAD(run_scalar);
}

void AscendPlatform::load(const AippProgram& program) {
    const uint64_t need = program.src0.size() + program.src1.size();
    if (need > gm.size_bytes()) {
        throw sim::Error(fmt::format("the source image needs {} bytes of GM; {} has {}", need,
                                     m_cfg.platform.name, gm.size_bytes()));
    }
    std::copy(program.src0.begin(), program.src0.end(), gm.data());
    std::copy(program.src1.begin(), program.src1.end(), gm.data() + program.src0.size());
    m_result.src0_addr = m_cfg.gm().base_addr;
    m_result.src1_addr = m_cfg.gm().base_addr + program.src0.size();
    m_result.dst_addr = m_cfg.l1().base_addr;
    m_program = &program;
}

void AscendPlatform::reg(uint64_t offset, uint64_t value) {
    if (scalar.write(m_cfg.aipp_base_addr + offset, &value, 8, m_qk.local()) !=
        tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("scalar unit: bus error writing AIPP register {:#x}", offset));
    }
    m_qk.sync_if_needed();
}

uint64_t AscendPlatform::read_reg(uint64_t offset) {
    uint64_t v = 0;
    if (scalar.read(m_cfg.aipp_base_addr + offset, &v, 8, m_qk.local()) != tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("scalar unit: bus error reading AIPP register {:#x}", offset));
    }
    return v;
}

// SetAippFunctions + LoadImageToLocal as register writes, start, wait for the interrupt.
void AscendPlatform::run_scalar() {
    if (m_program == nullptr) {
        return;
    }
    try {
        const AippProgram& p = *m_program;
        const auto spr = aipp::regs::pack_sprs(p.params, m_result.src0_addr, m_result.src1_addr);
        for (size_t i = 0; i < spr.size(); ++i) {
            reg(aipp::regs::SPR0 + 8 * i, spr[i]);
        }
        const auto load = aipp::regs::pack_load(p.load);
        reg(aipp::regs::LOAD_SIZE, load[0]);
        reg(aipp::regs::LOAD_START, load[1]);
        reg(aipp::regs::LOAD_PAD, load[2]);
        reg(aipp::regs::DST_ADDR, m_result.dst_addr);
        reg(aipp::regs::DST_TYPE, aipp::regs::pack_dst_type(p.params.output));
        reg(aipp::regs::INT_EN, aipp::regs::done_int_en::MASK | aipp::regs::error_int_en::MASK);
        m_qk.sync();
        m_result.start_ps = to_ps(sc_core::sc_time_stamp());
        reg(aipp::regs::CMD, aipp::regs::start::MASK);
        m_qk.sync();
        aipp.irq.wait_high();
        m_result.end_ps = to_ps(sc_core::sc_time_stamp());
        const uint64_t status = read_reg(aipp::regs::STATUS);
        reg(aipp::regs::STATUS, status & (aipp::regs::done::MASK | aipp::regs::error::MASK));
        if (aipp::regs::error::get(status) != 0) {
            m_result.error =
                aipp.jobs().empty() ? "the AIPP refused the job" : aipp.jobs().back().error;
            return;
        }
        const aipp::Geometry g = aipp::geometry(p.params, p.load);
        const uint64_t at = m_result.dst_addr - m_cfg.l1().base_addr;
        const size_t bytes = g.elements() * aipp::output_bytes(p.params.output);
        m_result.tile.assign(l1.data() + at, l1.data() + at + bytes);
        m_result.done = true;
    } catch (const sim::Error& e) {
        m_result.error = e.what();  // raised by the caller, outside the kernel
    }
}

}  // namespace npu::ascend
