// The Ascend AI Core around its AIPP load-image engine (SystemC): GM and L1 memories, the
// engine (models/aipp: registers, GM read port, L1 write port, interrupt) and the scalar unit's
// bus port on one router. The scalar unit plays the Ascend C calls through the bus only:
// SetAippFunctions writes SPR0..SPR9, LoadImageToLocal writes LOAD_SIZE/START/PAD, DST_ADDR and
// DST_TYPE and starts the engine; then it waits for the interrupt and clears STATUS.
// docs/aipp.md "Platform".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/aipp/aipp.h"
#include "platforms/ascend/ascend_config.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/router.h"

namespace npu::ascend {

// One load-image job: the parameters and the source planes, placed at the start of GM (src1
// right after src0), the tile at the start of L1.
struct AippProgram {
    aipp::Params params;
    aipp::LoadParams load;
    std::vector<uint8_t> src0, src1;
};

struct AippRun {
    bool done = false;
    std::string error;          // the engine refused the job: why
    std::vector<uint8_t> tile;  // read back from L1
    uint64_t src0_addr = 0, src1_addr = 0, dst_addr = 0;
    uint64_t start_ps = 0, end_ps = 0;  // CMD.start written .. interrupt taken
};

class AscendPlatform : public sc_core::sc_module {
public:
    // `engine`: the AIPP's timing and fidelity (from the job file); its L1 window is the config's.
    AscendPlatform(sc_core::sc_module_name name, const AscendConfig& cfg,
                   const aipp::AippConfig& engine);

    // Before sc_start(): places the source planes in GM (as a loader does) and queues the job.
    // Throws sim::Error when they do not fit.
    void load(const AippProgram& program);
    const AippRun& result() const { return m_result; }
    const sim::AddressMap& address_map() const { return router.address_map(); }

    sim::Router router{"router"};
    sim::Memory gm;
    sim::Memory l1;
    aipp::Aipp aipp;
    sim::AxiPort scalar;  // the scalar unit's port: register writes and reads

private:
    void run_scalar();
    void reg(uint64_t offset, uint64_t value);
    uint64_t read_reg(uint64_t offset);

    AscendConfig m_cfg;
    const AippProgram* m_program = nullptr;
    sim::QuantumKeeper m_qk;
    AippRun m_result;
};

// The engine configuration a platform and a job give: the job's timing and fidelity, the
// platform's L1 window and register latency.
aipp::AippConfig engine_config(const AscendConfig& cfg, const aipp::AippTiming& timing,
                               const aipp::Fidelity& fidelity);

}  // namespace npu::ascend
