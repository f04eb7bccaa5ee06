#include "platforms/dlp/dlp_platform.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::dlp {

using sim::to_ps;

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

void DlpPlatform::load(const Program& p, std::vector<std::vector<uint8_t>> inputs, bool streaming) {
    if (p.end_addr > m_cfg.ddr_base_addr + m_cfg.ddr_size_bytes) {
        throw sim::Error(fmt::format("the program needs DDR up to {:#x}; {} has {:#x}..{:#x}",
                                     p.end_addr, m_cfg.name, m_cfg.ddr_base_addr,
                                     m_cfg.ddr_base_addr + m_cfg.ddr_size_bytes));
    }
    if (inputs.size() != p.frames) {
        throw sim::Error(
            fmt::format("{} input frames given, the program runs {}", inputs.size(), p.frames));
    }
    m_program = &p;
    m_inputs = std::move(inputs);
    m_streaming = streaming;
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

uint32_t DlpPlatform::read_reg(uint64_t offset) {
    uint32_t v = 0;
    if (host.read(m_cfg.register_base_addr + offset, &v, 4, m_qk.local()) != tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("host: bus error reading register {:#x}", offset));
    }
    return v;
}

void DlpPlatform::wait_irq_bit(uint32_t bit) {
    for (;;) {
        m_qk.sync();
        dlp.irq.wait_high();
        const uint32_t status = read_reg(regs::IrqStatus);
        if ((status & regs::irq_error::MASK) != 0) {
            throw sim::Error(dlp.error());
        }
        if ((status & bit) != 0) {
            reg(regs::IrqStatus, bit);
            return;
        }
        sc_core::wait(dlp.irq.changed_event());  // another cause: wait for the next change
    }
}

void DlpPlatform::run_batch() {
    const Program& p = *m_program;
    for (size_t f = 0; f < m_inputs.size(); ++f) {
        write(p.input_addr + f * p.input_frame_bytes, m_inputs[f].data(), m_inputs[f].size());
    }
    reg(regs::StreamingMode, 0);
    reg(regs::FrameCount, p.frames);
    reg(regs::IrqEnable, regs::irq_done::MASK | regs::irq_error::MASK);
    m_qk.sync();
    m_result.start_ps = to_ps(sc_core::sc_time_stamp());
    reg(regs::InputStart, 1);
    wait_irq_bit(regs::irq_done::MASK);
    m_result.end_ps = to_ps(sc_core::sc_time_stamp());
    const uint64_t bytes = image_bytes(p.records.back().layer, m_cfg.dlp);
    for (uint32_t f = 0; f < p.frames; ++f) {
        std::vector<uint8_t> out(bytes);
        if (host.read(p.output_addr + f * p.output_frame_bytes, out.data(), out.size(),
                      m_qk.local()) != tlm::TLM_OK_RESPONSE) {
            throw sim::Error("host: bus error reading the results");
        }
        m_result.outputs.push_back(std::move(out));
    }
}

// The handshake: wait for "input ready", write the frame, InputNext; wait for "output ready",
// read the result, OutputNext; then the done interrupt.
void DlpPlatform::run_streaming() {
    const Program& p = *m_program;
    reg(regs::StreamingMode, 1);
    reg(regs::FrameCount, static_cast<uint32_t>(m_inputs.size()));
    reg(regs::IrqEnable, 0xf);
    m_qk.sync();
    m_result.start_ps = to_ps(sc_core::sc_time_stamp());
    reg(regs::InputStart, 1);
    const uint64_t bytes = image_bytes(p.records.back().layer, m_cfg.dlp);
    for (const std::vector<uint8_t>& frame : m_inputs) {
        wait_irq_bit(regs::irq_input_ready::MASK);
        write(p.input_addr, frame.data(), frame.size());
        reg(regs::InputNext, 1);
        wait_irq_bit(regs::irq_output_ready::MASK);
        std::vector<uint8_t> out(bytes);
        if (host.read(p.output_addr, out.data(), out.size(), m_qk.local()) !=
            tlm::TLM_OK_RESPONSE) {
            throw sim::Error("host: bus error reading a result");
        }
        m_result.outputs.push_back(std::move(out));
        reg(regs::OutputNext, 1);
    }
    wait_irq_bit(regs::irq_done::MASK);
    m_result.end_ps = to_ps(sc_core::sc_time_stamp());
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
        reg(regs::InstructionAddr, static_cast<uint32_t>(p.instruction_addr));
        reg(regs::LayerCount, static_cast<uint32_t>(p.records.size()));
        reg(regs::InputAddr, static_cast<uint32_t>(p.input_addr));
        reg(regs::InputSize, static_cast<uint32_t>(p.input_frame_bytes));
        reg(regs::OutputAddr, static_cast<uint32_t>(p.output_addr));
        reg(regs::OutputSize, static_cast<uint32_t>(p.output_frame_bytes));
        m_streaming ? run_streaming() : run_batch();
        m_result.done = true;
    } catch (const sim::Error& e) {
        m_result.error = e.what();
    }
}

}  // namespace npu::dlp
