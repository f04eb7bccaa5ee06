#include "sim/tlm/axi_port.h"

#include <algorithm>
#include <cstring>

namespace npu::sim {

using sc_core::sc_time;

AxiPort::AxiPort(sc_core::sc_module_name name, const BusConfig& bus, bool use_dmi)
    : sc_module(name)
    , socket("socket")
    , m_bus(bus)
    , m_use_dmi(use_dmi)
    , m_period(1.0 / static_cast<double>(bus.clock_hz), sc_core::SC_SEC)
    , m_period_ticks(m_period.value())
    , m_stats(basename())
    , m_bytes_read(m_stats.counter("bytes_read", "bytes", "bytes read through this port"))
    , m_bytes_written(m_stats.counter("bytes_written", "bytes", "bytes written through this port"))
    , m_beats(
          m_stats.counter("beats", "beats", "data beats: Σ ceil((addr mod W + n) / W) per piece"))
    , m_bursts(
          m_stats.counter("bursts", "bursts", "bursts: Σ ceil(beats / max_burst_beats) per piece"))
    , m_busy_cycles(m_stats.counter("busy_cycles", "cycles",
                                    "bus cycles occupied: bursts · burst_latency_cycles + beats"))
    , m_stall_cycles(m_stats.counter("stall_cycles", "cycles",
                                     "cycles a transfer waited for the port's previous transfer"))
    , m_dmi_transfers(m_stats.counter("dmi_transfers", "transfers", "transfers copied through DMI"))
    , m_errors(
          m_stats.counter("errors", "transfers", "transfers that ended with an error response")) {
    m_bus.validate(this->name());
    socket.register_invalidate_direct_mem_ptr(this, &AxiPort::invalidate_direct_mem_ptr);
}

tlm::tlm_response_status AxiPort::read(uint64_t addr, void* dst, size_t len, sc_time& local) {
    return transfer(tlm::TLM_READ_COMMAND, addr, static_cast<uint8_t*>(dst), len, local);
}

size_t AxiPort::debug(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t len) {
    tlm::tlm_generic_payload tx;
    tx.set_command(cmd);
    tx.set_address(addr);
    tx.set_data_ptr(data);
    tx.set_data_length(static_cast<unsigned>(len));
    tx.set_streaming_width(static_cast<unsigned>(len));
    return socket->transport_dbg(tx);
}

size_t AxiPort::debug_read(uint64_t addr, void* dst, size_t len) {
    return debug(tlm::TLM_READ_COMMAND, addr, static_cast<uint8_t*>(dst), len);
}

size_t AxiPort::debug_write(uint64_t addr, const void* src, size_t len) {
    // The payload's data pointer is non-const by TLM's API; a write never modifies it.
    return debug(tlm::TLM_WRITE_COMMAND, addr, static_cast<uint8_t*>(const_cast<void*>(src)), len);
}

tlm::tlm_response_status AxiPort::write(uint64_t addr, const void* src, size_t len,
                                        sc_time& local) {
    // The payload's data pointer is non-const by TLM's API; a write never modifies it.
    return transfer(tlm::TLM_WRITE_COMMAND, addr, static_cast<uint8_t*>(const_cast<void*>(src)),
                    len, local);
}

tlm::tlm_response_status AxiPort::transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf,
                                           size_t len, sc_time& local) {
    const TransferCost cost = transfer_cost(m_bus, addr, len);
    const sc_time requested = sc_core::sc_time_stamp() + local;
    const sc_time start = std::max(requested, m_busy_until);

    sc_time target_latency = sc_core::SC_ZERO_TIME;
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (!(m_use_dmi && try_dmi(cmd, addr, buf, len, cost.bursts, target_latency))) {
        status = by_bursts(cmd, addr, buf, len, start - sc_core::sc_time_stamp(), target_latency);
    } else {
        ++m_dmi_transfers;
    }

    // Integer ticks: cycles · period is exact in the kernel's resolution, and cheap.
    const sc_time end = start + sc_time::from_value(cost.cycles * m_period_ticks) + target_latency;
    m_busy_until = end;
    local = end - (requested - local);

    if (start > requested && m_period_ticks > 0) {
        m_stall_cycles += ((start - requested).value() + m_period_ticks / 2) / m_period_ticks;
    }
    m_busy_cycles += cost.cycles;
    m_beats += cost.beats;
    m_bursts += cost.bursts;
    (cmd == tlm::TLM_READ_COMMAND ? m_bytes_read : m_bytes_written) += len;
    if (m_notify_writes && cmd == tlm::TLM_WRITE_COMMAND) {
        m_wrote.notify(sc_core::SC_ZERO_TIME);
    }
    if (status != tlm::TLM_OK_RESPONSE) {
        ++m_errors;
    }
    return status;
}

bool AxiPort::try_dmi(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, size_t len,
                      uint64_t bursts, sc_time& target_latency) {
    if (len == 0) {
        return true;
    }
    const uint64_t last = addr + (len - 1);
    for (const tlm::tlm_dmi& d : m_dmi) {
        if (addr < d.get_start_address() || last > d.get_end_address()) {
            continue;
        }
        uint8_t* p = d.get_dmi_ptr() + (addr - d.get_start_address());
        if (cmd == tlm::TLM_READ_COMMAND && d.is_read_allowed()) {
            std::memcpy(buf, p, len);
            target_latency += d.get_read_latency() * static_cast<double>(bursts);
            return true;
        }
        if (cmd == tlm::TLM_WRITE_COMMAND && d.is_write_allowed()) {
            std::memcpy(p, buf, len);
            target_latency += d.get_write_latency() * static_cast<double>(bursts);
            return true;
        }
    }
    return false;
}

// Each burst goes out with the transfer's start as its annotated delay (the LT convention: a
// target sees sc_time_stamp() + delay as the access's time), and what the target adds to it is
// its latency.
tlm::tlm_response_status AxiPort::by_bursts(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf,
                                            size_t len, sc_time offset, sc_time& target_latency) {
    const uint64_t w = m_bus.data_width_bytes;
    const uint64_t max_burst_bytes = w * m_bus.max_burst_beats;
    bool dmi_hint = false;
    size_t done = 0;
    while (done < len) {
        const uint64_t a = addr + done;
        // A burst ends at the boundary or after max_burst_beats beats, whichever comes first.
        const uint64_t to_boundary = m_bus.boundary_bytes - a % m_bus.boundary_bytes;
        const uint64_t burst_room = max_burst_bytes - a % w;
        const size_t n =
            static_cast<size_t>(std::min<uint64_t>({len - done, to_boundary, burst_room}));
        m_tx.set_command(cmd);
        m_tx.set_address(a);
        m_tx.set_data_ptr(buf + done);
        m_tx.set_data_length(static_cast<unsigned>(n));
        m_tx.set_streaming_width(static_cast<unsigned>(n));
        m_tx.set_byte_enable_ptr(nullptr);
        m_tx.set_byte_enable_length(0);
        m_tx.set_dmi_allowed(false);
        m_tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time delay = offset;
        socket->b_transport(m_tx, delay);
        target_latency += delay - offset;
        if (m_tx.get_response_status() != tlm::TLM_OK_RESPONSE) {
            return m_tx.get_response_status();
        }
        dmi_hint = dmi_hint || m_tx.is_dmi_allowed();
        done += n;
    }
    if (dmi_hint && m_use_dmi) {
        tlm::tlm_dmi dmi;
        m_tx.set_address(addr);
        if (socket->get_direct_mem_ptr(m_tx, dmi)) {
            m_dmi.push_back(dmi);
        }
    }
    return tlm::TLM_OK_RESPONSE;
}

void AxiPort::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    m_dmi.erase(std::remove_if(m_dmi.begin(), m_dmi.end(),
                               [&](const tlm::tlm_dmi& d) {
                                   return d.get_start_address() <= end &&
                                          start <= d.get_end_address();
                               }),
                m_dmi.end());
}

}  // namespace npu::sim
