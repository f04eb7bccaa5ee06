// The Ascend AIPP load-image engine as a SystemC module: the SPR register block plus a command
// block (models/aipp/aipp_regs.h), a start bit, a done/error status with an interrupt, a read
// port for global memory and a write port for L1. One job: decode the registers, check them,
// fetch the crop's rows through the GM port, compute the tile with aipp::load_image (the pure,
// bit-exact function), write it through the L1 port, and finish after the time of
// aipp::aipp_cost: the transfers it issues are exactly those the cost model charges, so with
// latency-free memories the job's time equals the estimate. Semantics: docs/aipp.md "Registers".
#pragma once

#include <string>
#include <vector>

#include <systemc>

#include "models/aipp/aipp_cost.h"
#include "models/aipp/aipp_regs.h"
#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/register_target.h"

namespace npu::aipp {

struct AippConfig {
    AippTiming timing;
    Fidelity fidelity;
    uint64_t l1_base_addr = 0;             // the L1 window the tile must lie in
    uint64_t l1_size_bytes = 1024 * 1024;  // Ascend 910/310 AI Core L1: 1 MiB
    double register_latency_ns = 1;
};

// One job the engine ran (or refused).
struct JobRecord {
    regs::Programmed programmed;
    AippCost cost;
    uint64_t start_ps = 0, end_ps = 0;
    uint64_t error_code = regs::kNoError;
    std::string error;  // why, when error_code != 0
};

class Aipp : public sc_core::sc_module {
private:
    // Declared first: the register target below refers to the bank.
    std::vector<sim::Register> m_spr;  // SPR0..SPR9
    sim::Register m_size, m_start, m_pad, m_dst, m_type, m_cmd, m_status, m_int_en;
    sim::RegisterBank m_bank;

public:
    sim::RegisterTarget regs;  // the register block
    sim::AxiPort gm;           // reads the source image
    sim::AxiPort l1;           // writes the tile
    sim::IrqLine irq;          // STATUS.done / STATUS.error, as enabled in INT_EN

    // Throws sim::Error when the config is invalid.
    Aipp(sc_core::sc_module_name name, const AippConfig& cfg);

    const std::vector<JobRecord>& jobs() const { return m_jobs; }
    sim::StatGroup& stats() { return m_stats; }

private:
    void run();
    void execute(JobRecord& job);
    bool decode_and_check(JobRecord& job) const;
    void finish(const JobRecord& job);
    void update_irq();

    AippConfig m_cfg;
    sc_core::sc_time m_period;
    sc_core::sc_event m_start_event{"start"};
    std::vector<JobRecord> m_jobs;
    std::vector<uint8_t> m_plane0, m_plane1, m_tile;

    sim::StatGroup m_stats;
    sim::Counter& m_jobs_done;
    sim::Counter& m_jobs_failed;
    sim::Counter& m_busy_cycles;
    sim::Counter& m_read_bytes;
    sim::Counter& m_write_bytes;
    sim::Counter& m_ignored_starts;
};

}  // namespace npu::aipp
