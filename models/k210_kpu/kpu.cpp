#include "models/k210_kpu/kpu.h"

#include <algorithm>
#include <cmath>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::kpu {

using sim::to_ps;

using sc_core::sc_time;
using sim::Access;
using sim::Register;

namespace {
constexpr const char* kMsgType = "npusim/k210_kpu";
constexpr size_t kLayerWords = 12;

Register reg(const char* name, uint64_t off, Access a, uint64_t reset, bool partial = true) {
    return Register({name, off, 8, reset, a, ~uint64_t{0}, partial});
}

}  // namespace

Kpu::Kpu(sc_core::sc_module_name name, const KpuConfig& cfg, sim::TraceWriter* trace)
    : sc_module(name)
    , m_fifo(reg("LAYER_ARGUMENT_FIFO", regs::LAYER_ARGUMENT_FIFO, Access::WO, 0, false))
    , m_status(reg("INTERRUPT_STATUS", regs::INTERRUPT_STATUS, Access::RO, 0))
    , m_raw(reg("INTERRUPT_RAW", regs::INTERRUPT_RAW, Access::RO, 0))
    // Reset values the hardware documents nowhere: everything masked; thresholds as every SDK
    // init writes them (full 10 layers, empty 1); flush requests inactive; 16-bit weights.
    , m_mask(reg("INTERRUPT_MASK", regs::INTERRUPT_MASK, Access::RW, regs::kInterruptBits))
    , m_clear(reg("INTERRUPT_CLEAR", regs::INTERRUPT_CLEAR, Access::WO, 0))
    , m_threshold(reg("FIFO_THRESHOLD", regs::FIFO_THRESHOLD, Access::RW, 10 | (1 << 4)))
    , m_data_out(reg("FIFO_DATA_OUT", regs::FIFO_DATA_OUT, Access::RO, 0, false))
    , m_ctrl(reg("FIFO_CTRL", regs::FIFO_CTRL, Access::RW, 0x1f))
    , m_eight_bit(reg("EIGHT_BIT_MODE", regs::EIGHT_BIT_MODE, Access::RW, 0))
    , m_bank("kpu", regs::kBlockBytes)
    , regs("regs", m_bank, sc_time(cfg.register_latency_ns, sc_core::SC_NS))
    , ram("ram", sim::MemoryConfig{kRamBytes, 0, 0, true})
    , axi("axi", cfg.timing.bus)
    , irq("irq")
    , m_cfg(cfg)
    , m_trace(trace)
    , m_period_ps(1e12 / static_cast<double>(cfg.timing.clock_hz))
    , m_stats(basename())
    , m_layers_done(m_stats.counter("layers", "layers", "layers executed"))
    , m_layers_skipped(
          m_stats.counter("skipped_layers", "layers",
                          "layers not executed: a fatal field problem or a failed fetch"))
    , m_macs(m_stats.counter("macs", "MAC", "multiply-accumulates of executed layers"))
    , m_busy_cycles(m_stats.counter("busy_cycles", "cycles", "Σ layer total_cycles (KPU clock)"))
    , m_compute_cycles(m_stats.counter("compute_cycles", "cycles",
                                       "Σ a · input_lines + s · passes + w · output_lines"))
    , m_exposed_fetch_cycles(m_stats.counter("exposed_fetch_cycles", "cycles",
                                             "Σ weight fetch not hidden behind compute"))
    , m_output_stream_cycles(m_stats.counter("output_stream_cycles", "cycles",
                                             "Σ d · output words (send_data_out layers)"))
    , m_weight_bytes(m_stats.counter("weight_bytes", "bytes", "weights fetched from system memory"))
    , m_param_bytes(m_stats.counter("param_bytes", "bytes", "BN + activation tables fetched"))
    , m_output_bytes(m_stats.counter("output_bytes", "bytes", "bytes streamed to fifo_data_out"))
    , m_overflows(m_stats.counter("overflows_36bit", "values",
                                  "accumulator/BN values beyond signed 36 bits"))
    , m_fifo_overflow_words(m_stats.counter("layer_fifo_overflow_words", "words",
                                            "LAYER_ARGUMENT_FIFO pushes dropped: FIFO full"))
    , m_output_underflows(m_stats.counter("output_underflows", "reads",
                                          "FIFO_DATA_OUT reads of an empty FIFO (read 0)")) {
    m_cfg.validate();
    connect_registers();
    m_stats.attach(regs.stats());
    m_stats.attach(axi.stats());
    if (m_trace != nullptr) {
        m_track = m_trace->track(this->name());
    }
    update_interrupts();  // the empty FIFO at reset is no event: RAW stays 0
    SC_HAS_PROCESS(Kpu);
    SC_THREAD(run);
}

// The registers in their bank and what reading or writing each does.
void Kpu::connect_registers() {
    m_bank.add_consecutive(
        {m_fifo, m_status, m_raw, m_mask, m_clear, m_threshold, m_data_out, m_ctrl, m_eight_bit});
    m_fifo.on_write([this](uint64_t v) { push_word(v); });
    m_status.on_read_pure(
        [this](uint64_t) { return m_raw.value() & ~m_mask.value() & regs::kInterruptBits; });
    m_clear.on_write([this](uint64_t v) {
        // Clearing calc_done also acknowledges layer_error: drivers that know only the three
        // hardware causes (the SDK clears 7 after each layer) must not see it interrupt forever.
        if ((v & regs::calc_done_int::MASK) != 0) {
            v |= regs::layer_error_int::MASK;
        }
        m_raw.set_value(m_raw.value() & ~v);
        update_interrupts();
    });
    m_mask.on_write([this](uint64_t) { update_interrupts(); });
    m_threshold.on_write([this](uint64_t) { update_interrupts(); });
    m_data_out.on_read([this](uint64_t) { return pop_output(); });
    m_ctrl.on_write([this](uint64_t v) { flush(v); });
}

void Kpu::push_word(uint64_t w) {
    if (m_layer_fifo.size() >= m_cfg.layer_fifo_words) {
        ++m_fifo_overflow_words;
        SC_REPORT_WARNING(kMsgType, fmt::format("{}: LAYER_ARGUMENT_FIFO full ({} words): push of "
                                                "{:#018x} dropped",
                                                name(), m_cfg.layer_fifo_words, w)
                                        .c_str());
        return;
    }
    m_layer_fifo.push_back(w);
    if (m_layer_fifo.size() % kLayerWords == 0) {
        m_layer_written.push_back(regs.access_time());
    }
    update_interrupts();
    if (m_layer_fifo.size() >= kLayerWords) {
        m_layer_pushed.notify(sc_core::SC_ZERO_TIME);
    }
}

uint64_t Kpu::pop_output() {
    if (m_out.empty()) {
        ++m_output_underflows;
        return 0;
    }
    const uint64_t w = m_out.front();
    m_out.pop_front();
    return w;
}

void Kpu::flush(uint64_t ctrl) {
    // Active-low: writing 0 to a *_flush_n bit empties that FIFO once.
    if (regs::dma_fifo_flush_n::get(ctrl) == 0) {
        m_out.clear();
    }
    if (regs::cfg_fifo_flush_n::get(ctrl) == 0) {
        m_layer_fifo.clear();
        m_layer_written.clear();
        update_interrupts();
    }
}

void Kpu::set_raw(uint64_t bits) {
    m_raw.set_value(m_raw.value() | bits);
    update_interrupts();
}

void Kpu::update_interrupts() {
    // Almost-empty/full are events: the FIFO's count of whole layers reaching the threshold
    // (falling to <= empty, rising to >= full), not levels. The SDK's kpu_run_kmodel unmasks
    // almost-empty with an empty FIFO before its input DMA: a level would step the model at once,
    // before its input is there; on boards the first step comes from the DMA (kpu.c:1651-1676).
    // kpu_data_ready's flow pushes 12 layers, then unmasks it to be called when the KPU has taken
    // them down to the threshold.
    const uint64_t layers = m_layer_fifo.size() / kLayerWords;
    const bool empty = layers <= regs::fifo_empty_threshold::get(m_threshold.value());
    const bool full = layers >= regs::fifo_full_threshold::get(m_threshold.value());
    uint64_t raw = m_raw.value();
    if (empty && !m_was_almost_empty) {
        raw = regs::layer_cfg_almost_empty_int::set(raw, 1);
    }
    if (full && !m_was_almost_full) {
        raw = regs::layer_cfg_almost_full_int::set(raw, 1);
    }
    m_was_almost_empty = empty, m_was_almost_full = full;
    m_raw.set_value(raw);
    irq.set((raw & ~m_mask.value() & regs::kInterruptBits) != 0);
}

void Kpu::run() {
    for (;;) {
        while (m_layer_fifo.size() < kLayerWords) {
            sc_core::wait(m_layer_pushed);
        }
        Words w;
        for (uint64_t& x : w) {
            x = m_layer_fifo.front();
            m_layer_fifo.pop_front();
        }
        if (!m_layer_written.empty()) {  // starts no earlier than its last word was written
            const sc_core::sc_time now = sc_core::sc_time_stamp() + m_qk.local();
            if (m_layer_written.front() > now) {
                m_qk.local() += m_layer_written.front() - now;
            }
            m_layer_written.pop_front();
        }
        update_interrupts();
        execute(w);
    }
}

void Kpu::problem(uint64_t layer, const std::string& what, bool fatal) {
    const std::string msg =
        fmt::format("{}: layer {}: {}{}", name(), layer, what, fatal ? " (layer skipped)" : "");
    if (m_cfg.strict) {
        SC_REPORT_ERROR(kMsgType, msg.c_str());
    } else {
        SC_REPORT_WARNING(kMsgType, msg.c_str());
    }
}

bool Kpu::read(uint64_t addr, uint8_t* dst, size_t n, const char* what) {
    // The bus moves the bytes (and counts them); the layer's time is layer_cost()'s, whose fitted
    // fetch rate stands for this transfer (docs/k210_kpu.md "Timing").
    sc_time bus_time = m_qk.local();  // at the KPU's own time; its duration is not charged
    if (axi.read(addr, dst, n, bus_time) != tlm::TLM_OK_RESPONSE) {
        problem(m_layers.size(),
                fmt::format("fetching {} bytes of {} at {:#x} failed", n, what, addr), true);
        return false;
    }
    return true;
}

bool Kpu::fetch(const LayerArgs& a, bool eight_bit, LayerParams& p) {
    const size_t oc = static_cast<size_t>(a.out_channels());
    std::vector<uint8_t> bn(oc * 8), act(kActTableBytes);
    if (!read(a.bwsx_base_addr, bn.data(), bn.size(), "the BN table") ||
        !read(a.active_addr, act.data(), act.size(), "the activation table")) {
        return false;
    }
    p.bn.clear();
    for (size_t i = 0; i < oc; ++i) {
        p.bn.push_back(decode_bn(boost::endian::load_little_u64(bn.data() + 8 * i)));
    }
    p.act = decode_act(act.data());
    m_weights.resize(weight_bytes(a, eight_bit));
    uint64_t offset = 0;
    for (uint64_t bytes : weight_chunks(a, eight_bit)) {
        if (!read(a.para_start_addr + offset, m_weights.data() + offset, bytes, "weights")) {
            return false;
        }
        offset += bytes;
    }
    p.weights = m_weights.data();
    return true;
}

void Kpu::execute(const Words& w) {
    LayerRecord rec;
    rec.index = m_layers.size();
    rec.args = decode(w);
    const LayerArgs& a = rec.args;
    const bool eight_bit = regs::eight_bit_mode::get(m_eight_bit.value()) != 0;
    const sc_time start = sc_core::sc_time_stamp() + m_qk.local();
    rec.start_ps = to_ps(start);

    bool fatal = false;
    {  // no heap-owning local lives across the waits below (docs/testing.md)
        const std::vector<Problem> problems = validate(a, eight_bit);
        for (const Problem& p : problems) {
            problem(rec.index, p.field + " " + p.message, p.fatal);
        }
        fatal = any_fatal(problems);
    }
    rec.cost = layer_cost(a, eight_bit, m_cfg.timing);
    rec.skipped = fatal || !fetch(a, eight_bit, m_params);
    if (rec.skipped) {
        ++m_layers_skipped;
        rec.end_ps = to_ps(sc_core::sc_time_stamp() + m_qk.local());
        m_layers.push_back(rec);
        m_qk.sync();
        set_raw(regs::layer_error_int::MASK | (a.int_en ? regs::calc_done_int::MASK : 0));
        return;
    }

    m_result = run_layer(a, m_params, eight_bit, m_cfg.fidelity, ram.data());
    const LayerResult& r = m_result;
    const sc_time end =
        start + sim::from_ps(static_cast<double>(rec.cost.total_cycles) * m_period_ps);
    m_qk.local() = end - sc_core::sc_time_stamp();
    rec.end_ps = to_ps(end);
    rec.overflows = r.overflows;
    finish_layer(rec, r);
}

// A layer that ran: its warnings, output words, counters and trace; then, at its end time, the
// output and the interrupt.
void Kpu::finish_layer(LayerRecord& rec, const LayerResult& r) {
    const LayerArgs& a = rec.args;
    if (r.overflows > 0) {
        SC_REPORT_WARNING(kMsgType,
                          fmt::format("{}: layer {}: {} accumulator/BN values beyond signed "
                                      "36 bits (overflow policy {})",
                                      name(), rec.index, r.overflows,
                                      m_cfg.fidelity.overflow == Overflow::Keep64   ? "keep64"
                                      : m_cfg.fidelity.overflow == Overflow::Wrap36 ? "wrap36"
                                                                                    : "saturate36")
                              .c_str());
    }
    count_layer(rec, r);
    m_layers.push_back(rec);
    m_qk.sync();  // the interrupt and the output words appear at the layer's end, not before
    if (a.send_data_out) {
        for (size_t i = 0; i < r.dense_output.size(); i += 8) {  // little-endian 64-bit words
            uint8_t word[8] = {};
            std::copy_n(r.dense_output.begin() + static_cast<std::ptrdiff_t>(i),
                        std::min<size_t>(8, r.dense_output.size() - i), word);
            m_out.push_back(boost::endian::load_little_u64(word));
        }
        m_output_bytes += r.dense_output.size();
        m_output_added.notify(sc_core::SC_ZERO_TIME);
    }
    m_layer_done.notify(sc_core::SC_ZERO_TIME);
    if (a.int_en) {
        set_raw(regs::calc_done_int::MASK);
    }
}

void Kpu::count_layer(const LayerRecord& rec, const LayerResult& r) {
    const LayerArgs& a = rec.args;
    ++m_layers_done;
    m_macs += r.macs;
    m_busy_cycles += rec.cost.total_cycles;
    m_compute_cycles += rec.cost.compute_cycles;
    m_exposed_fetch_cycles += rec.cost.exposed_fetch_cycles;
    m_output_stream_cycles += rec.cost.output_cycles;
    m_weight_bytes += rec.cost.weight_bytes;
    m_param_bytes += rec.cost.param_bytes;
    m_overflows += r.overflows;
    if (m_trace != nullptr) {
        m_trace->complete(m_track, fmt::format("layer {}", rec.index), "kpu", rec.start_ps,
                          rec.end_ps - rec.start_ps,
                          {{"cycles", rec.cost.total_cycles},
                           {"macs", r.macs},
                           {"shape", fmt::format("{}x{}x{} -> {}x{}x{}", a.in_channels(),
                                                 a.in_height(), a.in_width(), a.out_channels(),
                                                 a.out_height(), a.out_width())}});
        trace_parts(rec);
    }
}

// The layer's time as the cost model composes it (docs/k210_kpu.md "Timing"), one span per part
// inside the layer's span, in order: fixed cost, exposed fetch (tables, weight chunk 0 and any
// later chunk compute does not hide), compute, output stream.
void Kpu::trace_parts(const LayerRecord& rec) {
    uint64_t t = rec.start_ps;
    for (const auto& [name, cycles] : rec.cost.parts()) {
        const auto ps = to_ps(sim::from_ps(static_cast<double>(cycles) * m_period_ps));
        const uint64_t d = std::min(ps, rec.end_ps > t ? rec.end_ps - t : 0);
        if (d > 0) {
            m_trace->complete(m_track, name, "kpu parts", t, d, {{"cycles", cycles}});
            t += d;
        }
    }
}

}  // namespace npu::kpu
