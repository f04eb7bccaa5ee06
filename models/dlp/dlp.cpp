#include "models/dlp/dlp.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/dlp/dlp_exec.h"
#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::dlp {

using sim::to_ps;

using sc_core::sc_time;
using sim::Access;
using sim::Register;

namespace {
constexpr const char* kMsgType = "npusim/dlp";

std::vector<Register> make_registers() {
    struct Def {
        const char* name;
        uint64_t offset;
        Access access;
        uint64_t reset;
    };
    const Def defs[] = {
        {"IPCore_Reset", regs::IPCore_Reset, Access::WO, 0},
        {"IPCore_Enable", regs::IPCore_Enable, Access::RW, 1},
        {"IPCore_Timestamp", regs::IPCore_Timestamp, Access::RO, regs::kTimestamp},
        {"InputStart", regs::InputStart, Access::WO, 0},
        {"FrameCount", regs::FrameCount, Access::RW, 1},
        {"InputAddr", regs::InputAddr, Access::RW, 0},
        {"InputSize", regs::InputSize, Access::RW, 0},
        {"OutputAddr", regs::OutputAddr, Access::RW, 0},
        {"OutputSize", regs::OutputSize, Access::RW, 0},
        {"InstructionAddr", regs::InstructionAddr, Access::RW, 0},
        {"LayerCount", regs::LayerCount, Access::RW, 0},
        {"Done", regs::Done, Access::RO, 0},
        {"FramesDone", regs::FramesDone, Access::RO, 0},
        {"Status", regs::Status, Access::RO, 0},
        {"IrqEnable", regs::IrqEnable, Access::RW, 0},
        {"IrqStatus", regs::IrqStatus, Access::W1C, 0},
        {"StreamingMode", regs::StreamingMode, Access::RW, 0},
        {"InputValid", regs::InputValid, Access::RO, 0},
        {"InputNext", regs::InputNext, Access::WO, 0},
        {"OutputValid", regs::OutputValid, Access::RO, 0},
        {"OutputNext", regs::OutputNext, Access::WO, 0},
        {"StreamingStop", regs::StreamingStop, Access::WO, 0},
        {"StreamingDone", regs::StreamingDone, Access::RO, 0},
    };
    std::vector<Register> v;
    for (const Def& d : defs) {
        v.emplace_back(Register::Spec{d.name, d.offset, 4, d.reset, d.access, 0xffffffffu, false});
    }
    for (Register& r : v) {
        r.reset();
    }
    return v;
}

}  // namespace

Dlp::Dlp(sc_core::sc_module_name name, const DlpConfig& cfg, const DlpTiming& timing)
    : sc_module(name)
    , m_regs_storage(make_registers())
    , m_bank("dlp", regs::kBlockBytes)
    , regs("regs", m_bank, sc_time(5, sc_core::SC_NS))
    , instr("instr", cfg.ddr_bus())
    , weights("weights", cfg.ddr_bus())
    , act("act", cfg.ddr_bus())
    , irq("irq")
    , m_cfg(cfg)
    , m_timing(timing)
    , m_period(sc_time::from_value(
          ((1'000'000'000'000u + cfg.target_frequency_hz / 2) / cfg.target_frequency_hz) *
          sc_time(1, sc_core::SC_PS).value()))
    , m_stats(basename())
    , m_frames(m_stats.counter("frames", "frames", "frames completed"))
    , m_layers(m_stats.counter("layers", "layers", "layer executions (frames x layers)"))
    , m_busy_cycles(m_stats.counter("busy_cycles", "cycles", "Σ layer total_cycles")) {
    cfg.validate(this->name());
    for (Register& r : m_regs_storage) {
        m_bank.add(r);
    }
    wire_registers();
    m_stats.attach(regs.stats());
    m_stats.attach(instr.stats());
    m_stats.attach(weights.stats());
    m_stats.attach(act.stats());
    SC_HAS_PROCESS(Dlp);
    SC_THREAD(run);
}

// What writes to the control registers do: start, reset, the streaming handshake, interrupts.
void Dlp::wire_registers() {
    reg(regs::InputStart).on_write([this](uint64_t v) {
        if ((v & 1) == 0) {
            return;
        }
        Register& status = reg(regs::Status);
        if (status.get<regs::busy>() != 0 || reg(regs::IPCore_Enable).value() == 0) {
            SC_REPORT_WARNING(kMsgType,
                              fmt::format("{}: InputStart while {}: ignored", this->name(),
                                          status.get<regs::busy>() != 0 ? "busy" : "disabled")
                                  .c_str());
            return;
        }
        status.set_value(regs::busy::set(0, 1));
        reg(regs::Done).set_value(0);
        reg(regs::FramesDone).set_value(0);
        reg(regs::StreamingDone).set_value(0);
        m_stop_requested = false;
        m_start.notify(sc_core::SC_ZERO_TIME);
    });
    reg(regs::IPCore_Reset).on_write([this](uint64_t v) {
        if ((v & 1) != 0 && reg(regs::Status).get<regs::busy>() == 0) {
            for (uint64_t o : {regs::Done, regs::FramesDone, regs::Status, regs::IrqStatus}) {
                reg(o).set_value(0);
            }
            update_irq();
        }
    });
    reg(regs::IrqEnable).on_write([this](uint64_t) { update_irq(); });
    reg(regs::InputNext).on_write([this](uint64_t v) {
        if ((v & 1) != 0 && reg(regs::InputValid).value() != 0) {
            reg(regs::InputValid).set_value(0);
            m_input_next.notify(sc_core::SC_ZERO_TIME);
        }
    });
    reg(regs::OutputNext).on_write([this](uint64_t v) {
        if ((v & 1) != 0 && reg(regs::OutputValid).value() != 0) {
            reg(regs::OutputValid).set_value(0);
            m_output_next.notify(sc_core::SC_ZERO_TIME);
        }
    });
    reg(regs::StreamingStop).on_write([this](uint64_t v) {
        if ((v & 1) != 0) {
            m_stop_requested = true;
            m_input_next.notify(sc_core::SC_ZERO_TIME);  // wake a processor waiting for input
        }
    });
    reg(regs::IrqStatus).on_write([this](uint64_t) { update_irq(); });
}

sim::Register& Dlp::reg(uint64_t offset) {
    for (Register& r : m_regs_storage) {
        if (r.offset() == offset) {
            return r;
        }
    }
    NPU_ASSERT(false, "no DLP register at {:#x}", offset);
}

void Dlp::update_irq() {
    irq.set((reg(regs::IrqStatus).value() & reg(regs::IrqEnable).value() & 0xf) != 0);
}

void Dlp::raise(uint64_t irq_bits) {
    reg(regs::IrqStatus).set_value(reg(regs::IrqStatus).value() | irq_bits);
    update_irq();
}

void Dlp::fail(uint64_t code, const std::string& why) {
    m_error = why;
    uint64_t s = regs::error::set(0, 1);
    reg(regs::Status).set_value(regs::error_code::set(s, code));
    reg(regs::IrqStatus).set_value(reg(regs::IrqStatus).value() | regs::irq_error::MASK);
    SC_REPORT_WARNING(
        kMsgType, fmt::format("{}: run stopped (error_code {}): {}", name(), code, why).c_str());
    update_irq();
}

// Record addresses point at frame 0; the input and result regions advance by a frame each.
uint32_t Dlp::adjust(uint64_t addr, uint32_t frame) const {
    auto& self = const_cast<Dlp&>(*this);
    const uint64_t in = self.reg(regs::InputAddr).value(), in_n = self.reg(regs::InputSize).value();
    const uint64_t out = self.reg(regs::OutputAddr).value(),
                   out_n = self.reg(regs::OutputSize).value();
    if (addr >= in && addr < in + in_n) {
        return static_cast<uint32_t>(addr + frame * in_n);
    }
    if (addr >= out && addr < out + out_n) {
        return static_cast<uint32_t>(addr + frame * out_n);
    }
    return static_cast<uint32_t>(addr);
}

void Dlp::run() {
    for (;;) {
        wait(m_start);
        if (run_frames()) {
            reg(regs::Status).set_value(0);
            reg(regs::Done).set_value(1);
            raise(regs::irq_done::MASK);
        }
    }
}

// Returns false when the run stopped on an error (already reported).
bool Dlp::run_frames() {
    const uint64_t layers = reg(regs::LayerCount).value();
    const uint64_t frames = reg(regs::FrameCount).value();
    if (layers == 0 || layers > 4096 || (frames == 0 && reg(regs::StreamingMode).value() == 0)) {
        fail(regs::kBadRecord, fmt::format("LayerCount {} and FrameCount {}: expected 1..4096 "
                                           "layers and at least one frame",
                                           layers, frames));
        return false;
    }
    // Fetch every record once (the layer overhead covers the fetch and decode).
    std::vector<uint8_t> raw(layers * kRecordBytes);
    sc_time fetch = sc_core::SC_ZERO_TIME;
    const uint64_t ia = reg(regs::InstructionAddr).value();
    if (instr.read(ia, raw.data(), raw.size(), fetch) != tlm::TLM_OK_RESPONSE) {
        fail(regs::kBusError,
             fmt::format("instruction fetch of {} bytes at {:#x}", raw.size(), ia));
        return false;
    }
    std::vector<Record> records(layers);
    for (size_t i = 0; i < layers; ++i) {
        std::string why = decode(raw.data() + i * kRecordBytes, records[i]);
        if (why.empty()) {
            why = derive_sizes(records[i], m_cfg, uint64_t{1} << 30);
        }
        if (!why.empty()) {
            fail(regs::kBadRecord, fmt::format("layer {}: {}", i, why));
            return false;
        }
    }
    if (reg(regs::StreamingMode).value() != 0) {
        return streaming(records, frames);
    }
    for (uint32_t f = 0; f < frames; ++f) {
        if (!run_frame(records, f, f)) {
            return false;
        }
        ++m_frames;
        reg(regs::FramesDone).set_value(f + 1);
    }
    return true;
}

// Streaming: one frame at a time in slot 0; ask for input, compute, offer the result, until
// FrameCount frames (0: no limit) or StreamingStop.
bool Dlp::streaming(const std::vector<Record>& records, uint64_t frames) {
    for (uint32_t f = 0; frames == 0 || f < frames; ++f) {
        reg(regs::InputValid).set_value(1);
        raise(regs::irq_input_ready::MASK);
        wait(m_input_next);
        if (m_stop_requested && reg(regs::InputValid).value() != 0) {
            reg(regs::InputValid).set_value(0);
            break;  // stopped while waiting for a frame
        }
        if (!run_frame(records, f, 0)) {
            return false;
        }
        reg(regs::OutputValid).set_value(1);
        raise(regs::irq_output_ready::MASK);
        wait(m_output_next);
        ++m_frames;
        reg(regs::FramesDone).set_value(f + 1);
        if (m_stop_requested) {
            break;
        }
    }
    reg(regs::StreamingDone).set_value(1);
    return true;
}

// One transfer of a layer's plan on its port, into or out of `buf`, back to back with the
// port's earlier ones; its duration (the growth of the port's local time `tp`) added to its term
// of `c`, as the cost model charges it. False: outside `buf`, or the bus refused it.
bool Dlp::transfer(const Transfer& x, const LayerPlacement& p, std::vector<uint8_t>& buf,
                   LayerCost& c, sc_time& tp) {
    if (x.bytes == 0) {
        return true;
    }
    if (x.offset + x.bytes > buf.size()) {
        return false;
    }
    const bool out = x.buffer == Transfer::Buffer::output;
    const bool param = x.buffer == Transfer::Buffer::weights || x.buffer == Transfer::Buffer::bias;
    const sc_time before = tp;
    const uint64_t addr = transfer_addr(x, p);
    const tlm::tlm_response_status s = out ? act.write(addr, buf.data() + x.offset, x.bytes, tp)
                                       : param
                                           ? weights.read(addr, buf.data() + x.offset, x.bytes, tp)
                                           : act.read(addr, buf.data() + x.offset, x.bytes, tp);
    const auto cycles = static_cast<uint64_t>((tp - before) / m_period + 0.5);
    (out ? c.write_cycles : param ? c.weight_cycles : c.read_cycles) += cycles;
    return s == tlm::TLM_OK_RESPONSE;
}

// One layer of a frame: the transfers of its plan (dlp_tiles: tiles when its images exceed the
// module's memories), the computation, its time; false after fail().
bool Dlp::run_layer(const Record& r, const LayerPlacement& p, uint32_t frame, size_t i) {
    LayerRun run{frame, i, kind_name(r.layer.kind), {}, to_ps(sc_core::sc_time_stamp()), 0};
    LayerPlan plan;
    try {
        plan = layer_plan(r.layer, p, m_cfg);
    } catch (const sim::Error& e) {
        fail(regs::kBadLayer, fmt::format("frame {} layer {}: {}", frame, i, e.what()));
        return false;
    }
    std::vector<uint8_t> in(p.input_bytes), in2(p.input2_bytes), w(p.weight_bytes), b(p.bias_bytes),
        out;
    auto buffer = [&](Transfer::Buffer x) -> std::vector<uint8_t>& {
        return x == Transfer::Buffer::input     ? in
               : x == Transfer::Buffer::input2  ? in2
               : x == Transfer::Buffer::weights ? w
               : x == Transfer::Buffer::bias    ? b
                                                : out;
    };
    sc_time act_t = sc_core::SC_ZERO_TIME, w_t = sc_core::SC_ZERO_TIME;
    auto move = [&](const Transfer& x) {
        return transfer(x, p, buffer(x.buffer), run.cost,
                        x.buffer == Transfer::Buffer::weights || x.buffer == Transfer::Buffer::bias
                            ? w_t
                            : act_t);
    };
    for (const Transfer& x : plan.transfers) {
        if (x.buffer != Transfer::Buffer::output && !move(x)) {
            fail(regs::kBusError, fmt::format("frame {} layer {}: a DDR read failed", frame, i));
            return false;
        }
    }
    try {
        out = execute_layer(r, m_cfg, {in.data(), in2.data(), w.data(), b.data()});
    } catch (const sim::Error& e) {
        fail(regs::kBadLayer, fmt::format("frame {} layer {}: {}", frame, i, e.what()));
        return false;
    }
    for (const Transfer& x : plan.transfers) {
        if (x.buffer == Transfer::Buffer::output && !move(x)) {
            fail(regs::kBusError, fmt::format("frame {} layer {}: the DDR write failed", frame, i));
            return false;
        }
    }
    finish_layer(r, p, run);
    return true;
}

// The cost model's compute terms beside the measured transfers; the layer's time passes.
void Dlp::finish_layer(const Record& r, const LayerPlacement& p, LayerRun& run) {
    LayerCost& c = run.cost;
    const LayerCost model = layer_cost(r.layer, p, m_cfg, m_timing, run.layer == 0);
    c.compute_cycles = model.compute_cycles;
    c.tiles = model.tiles;
    c.macs = model.macs;
    c.read_bytes = model.read_bytes, c.weight_bytes = model.weight_bytes;
    c.write_bytes = model.write_bytes;
    c.overhead_cycles = model.overhead_cycles;
    c.total_cycles = total_cycles(c, m_timing);
    wait(m_period * static_cast<double>(c.total_cycles));
    run.end_ps = to_ps(sc_core::sc_time_stamp());
    m_busy_cycles += c.total_cycles;
    ++m_layers;
    m_runs.push_back(run);
}

bool Dlp::run_frame(const std::vector<Record>& records, uint32_t frame, uint32_t slot) {
    for (size_t i = 0; i < records.size(); ++i) {
        LayerPlacement p = records[i].place;
        p.input_addr = adjust(p.input_addr, slot);
        p.input2_addr = adjust(p.input2_addr, slot);
        p.output_addr = adjust(p.output_addr, slot);
        if (!run_layer(records[i], p, frame, i)) {
            return false;
        }
    }
    return true;
}

}  // namespace npu::dlp
