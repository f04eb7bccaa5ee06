// An interrupt line between a model and a platform's interrupt controller or driver: a level with
// an event on every change. A model that runs ahead of simulated time (temporal decoupling) syncs
// its quantum keeper before it changes the line, so the edge lands at the right time.
#pragma once

#include <cstdint>

#include <systemc>

namespace npu::sim {

class IrqLine : public sc_core::sc_object {
public:
    explicit IrqLine(const char* name)
        : sc_object(name) {}

    const char* kind() const override { return "npu_irq_line"; }
    bool level() const { return m_level; }
    // Sets the level; a change notifies changed_event() (and posedge_event() on a rise) now.
    void set(bool level) {
        if (level == m_level) {
            return;
        }
        m_level = level;
        m_changed.notify(sc_core::SC_ZERO_TIME);
        if (level) {
            ++m_raises;
            m_posedge.notify(sc_core::SC_ZERO_TIME);
        }
    }
    const sc_core::sc_event& changed_event() const { return m_changed; }
    const sc_core::sc_event& posedge_event() const { return m_posedge; }
    // Number of low-to-high transitions so far.
    uint64_t raise_count() const { return m_raises; }
    // In an SC_THREAD: returns at once if the line is high, else waits for it to rise.
    void wait_high() const {
        while (!m_level) {
            sc_core::wait(m_posedge);
        }
    }

private:
    bool m_level = false;
    uint64_t m_raises = 0;
    // Unnamed: named events live in the enclosing module's namespace, where several lines clash.
    sc_core::sc_event m_changed;
    sc_core::sc_event m_posedge;
};

}  // namespace npu::sim
