#include "models/rv64/cpu.h"

namespace npu::rv64 {

void Cpu::trap(uint64_t cause, uint64_t epc, uint64_t tval) {
    uint64_t st = csr(Csr::Mstatus);
    st = (st & ~(kMstatusMpie | kMstatusMie)) | ((st & kMstatusMie) != 0 ? kMstatusMpie : 0) |
         kMstatusMpp;
    set_csr(Csr::Mstatus, st);
    set_csr(Csr::Mepc, epc);
    set_csr(Csr::Mcause, cause);
    set_csr(Csr::Mtval, tval);
    const uint64_t tvec = csr(Csr::Mtvec);
    const bool vectored = (tvec & 3) == 1 && (cause & kInterrupt) != 0;
    set_pc((tvec & ~uint64_t{3}) + (vectored ? 4 * (cause & ~kInterrupt) : 0));
}

bool Cpu::take_interrupt(uint64_t pending) {
    if ((csr(Csr::Mstatus) & kMstatusMie) == 0) {
        return false;
    }
    const uint64_t ready = pending & csr(Csr::Mie);
    for (uint64_t irq : {kIrqExternal, kIrqSoftware, kIrqTimer}) {  // the spec's priority order
        if ((ready >> irq) & 1) {
            trap(kInterrupt | irq, pc(), 0);
            return true;
        }
    }
    return false;
}

}  // namespace npu::rv64
