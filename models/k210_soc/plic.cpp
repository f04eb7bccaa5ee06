#include "models/k210_soc/plic.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::soc {

using sim::Access;
using sim::Register;

Plic::Plic(sc_core::sc_module_name name, sc_core::sc_time access_latency)
    : sc_module(name)
    , regs("regs", "plic", kBytes, access_latency)
    , m_stats(basename())
    , m_claims(m_stats.counter("claims", "interrupts", "claims that returned a source")) {
    // Source 0 does not exist: its priority is hard-wired 0, and a write (plic_init writes every
    // source's, 0 included: SDK plic.c) is ignored, not an error.
    for (unsigned id = 0; id < kSources; ++id) {
        m_priority[id] = &regs.add({fmt::format("source_priorities[{}]", id), 4 * id, 4, 0,
                                    id == 0 ? Access::RO_WI : Access::RW, 7, true});
    }
    for (unsigned w = 0; w < kWords; ++w) {
        regs.add({fmt::format("pending[{}]", w), kPending + 4 * w, 4, 0, Access::RO, 0, true})
            .on_read_pure([this, w](uint64_t) {
                uint64_t v = 0;
                for (unsigned b = 0; b < 32 && 32 * w + b < kSources; ++b) {
                    v |= uint64_t{pending(32 * w + b)} << b;
                }
                return v;
            });
    }
    for (unsigned c = 0; c < kContexts; ++c) {
        for (unsigned w = 0; w < kWords; ++w) {
            const uint64_t at = kEnables + c * kEnableStride + 4 * w;
            const uint64_t mask = w == 0 ? ~uint64_t{1} & 0xffffffff : 0xffffffff;  // no source 0
            m_enable[c][w] = &regs.add(
                {fmt::format("target_enables[{}].enable[{}]", c, w), at, 4, 0, Access::RW,
                 w + 1 == kWords ? (uint64_t{1} << (kSources - 32 * w)) - 1 : mask, true});
        }
        const uint64_t t = kTargets + c * kTargetStride;
        m_threshold[c] = &regs.add(
            {fmt::format("targets[{}].priority_threshold", c), t, 4, 0, Access::RW, 7, true});
        Register& cc = regs.add(
            {fmt::format("targets[{}].claim_complete", c), t + 4, 4, 0, Access::RW, 0, true});
        cc.on_read([this, c](uint64_t) { return uint64_t{claim(c)}; });
        cc.on_write([this](uint64_t id) {
            if (id < kSources) {
                m_in_service[id] = false;
            }
        });
    }
}

void Plic::connect(unsigned id, const sim::IrqLine& line) {
    if (id == 0 || id >= kSources) {
        throw sim::Error(
            fmt::format("plic: interrupt source {} does not exist (1..{})", id, kSources - 1));
    }
    m_lines[id] = &line;
    m_connected.push_back(&line);
}

bool Plic::pending(unsigned id) const {
    return m_lines[id] != nullptr && m_lines[id]->level() && !m_in_service[id];
}

// The enabled sources in increasing id (ties go to the lowest), by the set bits of the enable
// words (asked before every quantum of each hart: most sources are not enabled).
unsigned Plic::best(unsigned ctx) const {
    unsigned id = 0;
    uint64_t top = m_threshold[ctx]->value();
    for (unsigned w = 0; 32 * w < kSources; ++w) {
        uint64_t bits = m_enable[ctx][w]->value() & (w == 0 ? ~uint64_t{1} : ~uint64_t{0});
        while (bits != 0) {
            const unsigned s = 32 * w + static_cast<unsigned>(__builtin_ctzll(bits));
            bits &= bits - 1;
            if (s < kSources && pending(s) && m_priority[s]->value() > top) {
                id = s, top = m_priority[s]->value();
            }
        }
    }
    return id;
}

unsigned Plic::claim(unsigned ctx) {
    const unsigned id = best(ctx);
    if (id != 0) {
        m_in_service[id] = true;
        ++m_claims;
    }
    return id;
}

}  // namespace npu::soc
