#include "sim/tlm/register_target.h"

#include <fmt/format.h>

namespace npu::sim {

namespace {
constexpr const char* kMsgType = "npusim/registers";
}

tlm::tlm_response_status to_tlm(BankResult r) {
    switch (r) {
    case BankResult::OK: return tlm::TLM_OK_RESPONSE;
    case BankResult::ADDRESS_ERROR: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    case BankResult::ACCESS_ERROR: return tlm::TLM_COMMAND_ERROR_RESPONSE;
    case BankResult::SIZE_ERROR: return tlm::TLM_BURST_ERROR_RESPONSE;
    }
    return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

RegisterTarget::RegisterTarget(sc_core::sc_module_name name, RegisterBank& bank,
                               sc_core::sc_time access_latency)
    : sc_module(name)
    , socket("socket")
    , m_bank(bank)
    , m_latency(access_latency)
    , m_stats(basename())
    , m_reads(m_stats.counter("reads", "accesses", "register reads that succeeded"))
    , m_writes(m_stats.counter("writes", "accesses", "register writes that succeeded"))
    , m_errors(m_stats.counter("errors", "accesses", "register accesses answered with an error")) {
    socket.register_b_transport(this, &RegisterTarget::b_transport);
    socket.register_transport_dbg(this, &RegisterTarget::transport_dbg);
}

void RegisterTarget::b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
    const uint64_t offset = tx.get_address();
    const unsigned len = tx.get_data_length();
    const bool read = tx.get_command() == tlm::TLM_READ_COMMAND;
    if (tx.get_command() == tlm::TLM_IGNORE_COMMAND) {
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    std::string why;
    if (tx.get_byte_enable_ptr() != nullptr) {
        status = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
        why = "byte enables are not supported on registers";
    } else if (tx.get_streaming_width() < len) {
        status = tlm::TLM_BURST_ERROR_RESPONSE;
        why = "streaming accesses are not supported on registers";
    } else {
        m_access_time = sc_core::sc_time_stamp() + delay;
        const BankResult r = read ? m_bank.read(offset, tx.get_data_ptr(), len)
                                  : m_bank.write(offset, tx.get_data_ptr(), len);
        status = to_tlm(r);
        why = to_string(r);
    }
    delay += m_latency;
    tx.set_response_status(status);
    if (status == tlm::TLM_OK_RESPONSE) {
        ++(read ? m_reads : m_writes);
        return;
    }
    ++m_errors;
    const Register* reg = m_bank.find(offset);
    SC_REPORT_WARNING(kMsgType, fmt::format("{}: {}-byte {} at offset {:#x}{}: {}", name(), len,
                                            read ? "read" : "write", offset,
                                            reg != nullptr ? " (" + reg->name() + ")" : "", why)
                                    .c_str());
}

unsigned RegisterTarget::transport_dbg(tlm::tlm_generic_payload& tx) {
    m_access_time = sc_core::sc_time_stamp();  // a computed value (a counter) as of now
    if (tx.get_command() == tlm::TLM_READ_COMMAND) {
        return static_cast<unsigned>(
            m_bank.debug_read(tx.get_address(), tx.get_data_ptr(), tx.get_data_length()));
    }
    // A debugger's write is the bus write it asks for (rights, W1C, the register's effects) at
    // the current time, taking none.
    if (tx.get_command() == tlm::TLM_WRITE_COMMAND) {
        const unsigned len = tx.get_data_length();
        return m_bank.write(tx.get_address(), tx.get_data_ptr(), len) == BankResult::OK ? len : 0;
    }
    return 0;
}

}  // namespace npu::sim
