#include "sim/tlm/memory.h"

#include <cstring>

#include <fmt/format.h>
#include <sys/mman.h>

#include "sim/core/error.h"

namespace npu::sim {

using sc_core::SC_NS;
using sc_core::sc_time;

Memory::Memory(sc_core::sc_module_name name, const MemoryConfig& cfg)
    : sc_module(name)
    , socket("socket")
    , m_cfg(cfg)
    , m_read_latency(cfg.read_latency_ns, SC_NS)
    , m_write_latency(cfg.write_latency_ns, SC_NS)
    , m_stats(basename())
    , m_reads(m_stats.counter("reads", "transactions", "b_transport reads served"))
    , m_writes(m_stats.counter("writes", "transactions", "b_transport writes served"))
    , m_bytes_read(m_stats.counter("bytes_read", "bytes", "bytes read through b_transport"))
    , m_bytes_written(
          m_stats.counter("bytes_written", "bytes", "bytes written through b_transport"))
    , m_errors(m_stats.counter("errors", "transactions",
                               "transactions answered with an error response")) {
    if (cfg.size_bytes == 0) {
        throw Error(fmt::format("memory {}: size_bytes must be positive", this->name()));
    }
    void* p = ::mmap(nullptr, cfg.size_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        throw Error(fmt::format("memory {}: cannot map {} bytes", this->name(), cfg.size_bytes));
    }
    m_data = static_cast<uint8_t*>(p);
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
}

Memory::~Memory() {
    ::munmap(m_data, m_cfg.size_bytes);
}

void Memory::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
    const uint64_t addr = tx.get_address();
    const unsigned len = tx.get_data_length();
    const tlm::tlm_command cmd = tx.get_command();
    if (cmd == tlm::TLM_IGNORE_COMMAND) {
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (!in_range(addr, len)) {
        ++m_errors;
        tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (tx.get_streaming_width() < len) {
        ++m_errors;  // FIFO-style streaming is not what a memory does
        tx.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    uint8_t* mem = m_data + addr;
    uint8_t* buf = tx.get_data_ptr();
    const uint8_t* be = tx.get_byte_enable_ptr();
    const unsigned be_len = tx.get_byte_enable_length();
    if (be != nullptr && be_len == 0) {
        ++m_errors;
        tx.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    const bool read = cmd == tlm::TLM_READ_COMMAND;
    if (be == nullptr) {
        read ? std::memcpy(buf, mem, len) : std::memcpy(mem, buf, len);
    } else {
        for (unsigned i = 0; i < len; ++i) {
            if (be[i % be_len] == TLM_BYTE_ENABLED) {
                (read ? buf[i] : mem[i]) = read ? mem[i] : buf[i];
            }
        }
    }
    if (read) {
        ++m_reads;
        m_bytes_read += len;
        delay += m_read_latency;
    } else {
        ++m_writes;
        m_bytes_written += len;
        delay += m_write_latency;
    }
    tx.set_dmi_allowed(m_cfg.dmi);
    tx.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi) {
    if (!m_cfg.dmi || tx.get_address() >= m_cfg.size_bytes) {
        return false;
    }
    dmi.set_dmi_ptr(m_data);
    dmi.set_start_address(0);
    dmi.set_end_address(m_cfg.size_bytes - 1);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    dmi.set_read_latency(m_read_latency);
    dmi.set_write_latency(m_write_latency);
    return true;
}

unsigned Memory::transport_dbg(tlm::tlm_generic_payload& tx) {
    const uint64_t addr = tx.get_address();
    if (addr >= m_cfg.size_bytes) {
        return 0;
    }
    const unsigned len =
        static_cast<unsigned>(std::min<uint64_t>(tx.get_data_length(), m_cfg.size_bytes - addr));
    if (tx.get_command() == tlm::TLM_READ_COMMAND) {
        std::memcpy(tx.get_data_ptr(), m_data + addr, len);
    } else if (tx.get_command() == tlm::TLM_WRITE_COMMAND) {
        std::memcpy(m_data + addr, tx.get_data_ptr(), len);
    } else {
        return 0;
    }
    return len;
}

}  // namespace npu::sim
