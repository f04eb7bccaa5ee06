#include "platforms/dlp/dlp_platform.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {
uint64_t to_ps(const sc_core::sc_time& t) {
    return static_cast<uint64_t>(t.value() / sc_core::sc_time(1, sc_core::SC_PS).value());
}
}  // namespace

DlpPlatform::DlpPlatform(sc_core::sc_module_name name, const DlpPlatformConfig& cfg)
    : sc_module(name)
    , ddr("ddr", sim::MemoryConfig{cfg.ddr_size_bytes, 0, 0, true})
    , dlp("dlp", cfg.dlp, cfg.timing)
    , host("host", cfg.dlp.ddr_bus())
    , m_cfg(cfg) {
    host.socket.bind(router.target_socket);
    dlp.instr.socket.bind(router.target_socket);
    dlp.weights.socket.bind(router.target_socket);
    dlp.act.socket.bind(router.target_socket);
    router.map("ddr", cfg.ddr_base_addr, cfg.ddr_size_bytes, router.bind_target(ddr.socket));
    router.map("dlp", cfg.register_base_addr, regs::kBlockBytes,
               router.bind_target(dlp.regs.socket));
    SC_HAS_PROCESS(DlpPlatform);
    SC_THREAD(run_host);
}

void DlpPlatform::load(const Program& p, std::vector<std::vector<uint8_t>> inputs) {
    if (p.end_addr > m_cfg.ddr_base_addr + m_cfg.ddr_size_bytes) {
        throw sim::Error(fmt::format("the program needs DDR up to {:#x}; {} has {:#x}..{:#x}",
                                     p.end_addr, m_cfg.name, m_cfg.ddr_base_addr,
                                     m_cfg.ddr_base_addr + m_cfg.ddr_size_bytes));
    }
    if (inputs.size() != p.frames) {
        throw sim::Error(fmt::format("{} input frames given, the program runs {}", inputs.size(),
                                     p.frames));
    }
    m_program = &p;
    m_inputs = std::move(inputs);
}

void DlpPlatform::write(uint64_t addr, const void* data, size_t n) {
    if (n != 0 && host.write(addr, data, n, m_qk.local()) != tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("host: bus error writing {} bytes at {:#x}", n, addr));
    }
    m_qk.sync_if_needed();
}

void DlpPlatform::reg(uint64_t offset, uint32_t value) {
    write(m_cfg.register_base_addr + offset, &value, 4);
}

void DlpPlatform::run_host() {
    if (m_program == nullptr) {
        return;
    }
    const Program& p = *m_program;
    try {
        write(p.instruction_addr, p.instructions.data(), p.instructions.size());
        write(p.conv_weight_addr, p.conv_weights.data(), p.conv_weights.size());
        write(p.fc_weight_addr, p.fc_weights.data(), p.fc_weights.size());
        for (size_t f = 0; f < m_inputs.size(); ++f) {
            write(p.input_addr + f * p.input_frame_bytes, m_inputs[f].data(), m_inputs[f].size());
        }
        reg(regs::InstructionAddr, static_cast<uint32_t>(p.instruction_addr));
        reg(regs::LayerCount, static_cast<uint32_t>(p.records.size()));
        reg(regs::InputAddr, static_cast<uint32_t>(p.input_addr));
        reg(regs::InputSize, static_cast<uint32_t>(p.input_frame_bytes));
        reg(regs::OutputAddr, static_cast<uint32_t>(p.output_addr));
        reg(regs::OutputSize, static_cast<uint32_t>(p.output_frame_bytes));
        reg(regs::FrameCount, p.frames);
        reg(regs::IrqEnable, 3);
        m_qk.sync();
        m_result.start_ps = to_ps(sc_core::sc_time_stamp());
        reg(regs::InputStart, 1);
        m_qk.sync();
        dlp.irq.wait_high();
        m_result.end_ps = to_ps(sc_core::sc_time_stamp());
        if (!dlp.error().empty()) {
            m_result.error = dlp.error();
            return;
        }
        const uint64_t bytes = image_bytes(p.records.back().layer, m_cfg.dlp);
        for (uint32_t f = 0; f < p.frames; ++f) {
            std::vector<uint8_t> out(bytes);
            if (host.read(p.output_addr + f * p.output_frame_bytes, out.data(), out.size(),
                          m_qk.local()) != tlm::TLM_OK_RESPONSE) {
                throw sim::Error("host: bus error reading the results");
            }
            m_result.outputs.push_back(std::move(out));
        }
        reg(regs::IrqStatus, 3);
        m_result.done = true;
    } catch (const sim::Error& e) {
        m_result.error = e.what();
    }
}

}  // namespace npu::dlp
