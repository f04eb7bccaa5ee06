#include "models/aipp/aipp.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/aipp/aipp_func.h"
#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::aipp {

using sim::to_ps;

using sc_core::sc_time;
using sim::Access;
using sim::Register;

namespace {
constexpr const char* kMsgType = "npusim/aipp";

Register reg(const std::string& name, uint64_t off, Access a, uint64_t write_mask = ~uint64_t{0}) {
    return Register({name, off, 8, 0, a, write_mask, true});
}

std::vector<Register> sprs() {
    std::vector<Register> v;
    for (uint64_t i = 0; i < 10; ++i) {
        v.push_back(reg(fmt::format("SPR{}", i), regs::SPR0 + 8 * i, Access::RW));
    }
    return v;
}

}  // namespace

Aipp::Aipp(sc_core::sc_module_name name, const AippConfig& cfg)
    : sc_module(name)
    , m_spr(sprs())
    , m_size(reg("LOAD_SIZE", regs::LOAD_SIZE, Access::RW))
    , m_start(reg("LOAD_START", regs::LOAD_START, Access::RW))
    , m_pad(reg("LOAD_PAD", regs::LOAD_PAD, Access::RW))
    , m_dst(reg("DST_ADDR", regs::DST_ADDR, Access::RW))
    , m_type(reg("DST_TYPE", regs::DST_TYPE, Access::RW))
    , m_cmd(reg("CMD", regs::CMD, Access::WO))
    , m_status(reg("STATUS", regs::STATUS, Access::W1C, regs::done::MASK | regs::error::MASK))
    , m_int_en(reg("INT_EN", regs::INT_EN, Access::RW))
    , m_bank("aipp", regs::kBlockBytes)
    , regs("regs", m_bank, sc_time(cfg.register_latency_ns, sc_core::SC_NS))
    , gm("gm", cfg.timing.gm_bus)
    , l1("l1", cfg.timing.l1_bus)
    , irq("irq")
    , m_cfg(cfg)
    , m_period(sc_time::from_value(aipp::cycles_to_ps(1, cfg.timing.clock_hz) *
                                   sc_time(1, sc_core::SC_PS).value()))
    , m_stats(basename())
    , m_jobs_done(m_stats.counter("jobs", "jobs", "LoadImageToLocal jobs completed"))
    , m_jobs_failed(m_stats.counter("failed_jobs", "jobs",
                                    "jobs refused or stopped (STATUS.error, see error_code)"))
    , m_busy_cycles(m_stats.counter("busy_cycles", "cycles", "Σ job total_cycles (engine clock)"))
    , m_read_bytes(m_stats.counter("read_bytes", "bytes", "source bytes fetched through gm"))
    , m_write_bytes(m_stats.counter("write_bytes", "bytes", "tile bytes written through l1"))
    , m_ignored_starts(m_stats.counter("ignored_starts", "writes", "CMD.start while busy")) {
    if (cfg.timing.clock_hz == 0 || cfg.l1_size_bytes == 0) {
        throw sim::Error(std::string(this->name()) + ": clock_hz and l1_size_bytes must be > 0");
    }
    cfg.timing.gm_bus.validate("aipp.timing.gm_bus");
    cfg.timing.l1_bus.validate("aipp.timing.l1_bus");
    m_bank.add_consecutive({m_spr[0], m_spr[1], m_spr[2], m_spr[3], m_spr[4], m_spr[5], m_spr[6],
                            m_spr[7], m_spr[8], m_spr[9],
                            sim::RegisterBank::Reserved{regs::LOAD_SIZE - regs::SPR9 - 8}, m_size,
                            m_start, m_pad, m_dst, m_type, m_cmd, m_status, m_int_en});
    m_cmd.on_write([this](uint64_t v) {
        if (regs::start::get(v) == 0) {
            return;
        }
        if (m_status.get<regs::busy>() != 0) {
            ++m_ignored_starts;
            SC_REPORT_WARNING(
                kMsgType,
                fmt::format("{}: CMD.start while a job runs: ignored", this->name()).c_str());
            return;
        }
        m_status.set<regs::busy>(1);
        m_start_event.notify(sc_core::SC_ZERO_TIME);
    });
    m_status.on_write([this](uint64_t) { update_irq(); });
    m_int_en.on_write([this](uint64_t) { update_irq(); });
    m_stats.attach(regs.stats());
    m_stats.attach(gm.stats());
    m_stats.attach(l1.stats());
    SC_HAS_PROCESS(Aipp);
    SC_THREAD(run);
}

void Aipp::update_irq() {
    const uint64_t s = m_status.value(), en = m_int_en.value();
    irq.set((regs::done::get(s) != 0 && regs::done_int_en::get(en) != 0) ||
            (regs::error::get(s) != 0 && regs::error_int_en::get(en) != 0));
}

void Aipp::run() {
    for (;;) {
        wait(m_start_event);
        JobRecord job;
        const sc_time start = sc_core::sc_time_stamp();
        job.start_ps = to_ps(start);
        execute(job);
        const sc_time busy =
            job.error_code == regs::kNoError
                ? sc_time::from_value(job.cost.total_ps * sc_time(1, sc_core::SC_PS).value())
                : m_period * static_cast<double>(m_cfg.timing.start_cycles);
        wait(busy);
        job.end_ps = to_ps(sc_core::sc_time_stamp());
        finish(job);
    }
}

// Decodes the registers into job.programmed and checks them: false (job.error set) when the
// engine refuses the job.
bool Aipp::decode_and_check(JobRecord& job) const {
    std::array<uint64_t, 10> spr{};
    for (size_t i = 0; i < 10; ++i) {
        spr[i] = m_spr[i].value();
    }
    regs::Programmed& p = job.programmed;
    std::string why = regs::unpack(spr, {m_size.value(), m_start.value(), m_pad.value()},
                                   m_dst.value(), m_type.value(), p);
    if (!why.empty()) {
        job.error_code = regs::kBadFormat, job.error = why;
        return false;
    }
    std::vector<std::string> problems = check(p.params, p.load);
    for (std::string& a : check_source_alignment(p.params, p.src0_addr, p.src1_addr)) {
        problems.push_back(std::move(a));
    }
    if (!problems.empty()) {
        job.error_code = regs::kBadParameters;
        for (const std::string& s : problems) {
            job.error += (job.error.empty() ? "" : "; ") + s;
        }
        return false;
    }
    const size_t bytes = geometry(p.params, p.load).elements() * output_bytes(p.params.output);
    if (p.dst_addr % 32 != 0 || p.dst_addr < m_cfg.l1_base_addr ||
        p.dst_addr + bytes > m_cfg.l1_base_addr + m_cfg.l1_size_bytes) {
        job.error_code = regs::kBadDestination;
        job.error = fmt::format(
            "DST_ADDR {:#x}: the {}-byte tile must start 32-byte aligned inside L1 [{:#x}, {:#x})",
            p.dst_addr, bytes, m_cfg.l1_base_addr, m_cfg.l1_base_addr + m_cfg.l1_size_bytes);
        return false;
    }
    return true;
}

// Decodes and checks the registers, moves the data; fills job.cost, or job.error.
void Aipp::execute(JobRecord& job) {
    if (!decode_and_check(job)) {
        return;
    }
    const regs::Programmed& p = job.programmed;
    const size_t bytes = geometry(p.params, p.load).elements() * output_bytes(p.params.output);
    // Fetch the crop's rows into a compact copy, as the cost model charges them.
    const SourcePlan plan = source_plan(p.params, p.load, p.src0_addr, p.src1_addr);
    m_plane0.assign(plan.plane0_bytes, 0);
    m_plane1.assign(plan.plane1_bytes, 0);
    sc_time read_time = sc_core::SC_ZERO_TIME;
    for (const Span& s : plan.spans) {
        uint8_t* dst = (s.plane == 0 ? m_plane0.data() : m_plane1.data()) + s.offset;
        if (gm.read(s.addr, dst, s.bytes, read_time) != tlm::TLM_OK_RESPONSE) {
            job.error_code = regs::kBusError;
            job.error = fmt::format("GM read of {} bytes at {:#x} failed", s.bytes, s.addr);
            return;
        }
        m_read_bytes += s.bytes;
    }
    m_tile.resize(bytes);
    load_image(p.params, plan.compact, m_cfg.fidelity,
               {m_plane0.data(), m_plane0.size(), m_plane1.empty() ? nullptr : m_plane1.data(),
                m_plane1.size()},
               m_tile.data());
    sc_time write_time = sc_core::SC_ZERO_TIME;
    if (l1.write(p.dst_addr, m_tile.data(), bytes, write_time) != tlm::TLM_OK_RESPONSE) {
        job.error_code = regs::kBusError;
        job.error = fmt::format("L1 write of {} bytes at {:#x} failed", bytes, p.dst_addr);
        return;
    }
    m_write_bytes += bytes;
    // Time: the cost model's terms, with the transfers as the ports timed them (equal to the
    // model's bus terms when the memories add no latency).
    job.cost = aipp_cost(p.params, p.load, m_cfg.timing, {p.src0_addr, p.src1_addr, p.dst_addr});
    const uint64_t period_ps = cycles_to_ps(1, m_cfg.timing.clock_hz);
    job.cost.total_ps = (job.cost.start_cycles + job.cost.row_cycles) * period_ps +
                        std::max(to_ps(read_time), to_ps(write_time));
    job.cost.total_cycles = (job.cost.total_ps + period_ps - 1) / period_ps;
}

void Aipp::finish(const JobRecord& job) {
    uint64_t s = m_status.value();
    s = regs::busy::set(s, 0);
    if (job.error_code == regs::kNoError) {
        s = regs::done::set(s, 1);
        ++m_jobs_done;
        m_busy_cycles += job.cost.total_cycles;
    } else {
        s = regs::error_code::set(regs::error::set(s, 1), job.error_code);
        ++m_jobs_failed;
        SC_REPORT_WARNING(kMsgType, fmt::format("{}: job refused (error_code {}): {}", name(),
                                                job.error_code, job.error)
                                        .c_str());
    }
    m_status.set_value(s);
    m_jobs.push_back(job);
    update_irq();
}

}  // namespace npu::aipp
