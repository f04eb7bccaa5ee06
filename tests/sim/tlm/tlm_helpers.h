// Small initiators and targets for component tests.
#pragma once

#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace npu::test {

// Issues transactions from the test body and records DMI invalidations it receives.
struct TestInitiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<TestInitiator> socket{"socket"};
    std::vector<std::pair<uint64_t, uint64_t>> invalidated;

    explicit TestInitiator(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_invalidate_direct_mem_ptr(this, &TestInitiator::invalidate);
    }
    tlm::tlm_response_status rw(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len,
                                sc_core::sc_time& delay) {
        tlm::tlm_generic_payload tx;
        tx.set_command(cmd);
        tx.set_address(addr);
        tx.set_data_ptr(static_cast<uint8_t*>(data));
        tx.set_data_length(len);
        tx.set_streaming_width(len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, delay);
        EXPECT_EQ(tx.get_address(), addr) << "the interconnect must restore the address";
        return tx.get_response_status();
    }
    tlm::tlm_response_status read(uint64_t addr, void* data, unsigned len) {
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        return rw(tlm::TLM_READ_COMMAND, addr, data, len, d);
    }
    tlm::tlm_response_status write(uint64_t addr, const void* data, unsigned len) {
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        return rw(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(data), len, d);
    }
    bool dmi(uint64_t addr, tlm::tlm_dmi& out) {
        tlm::tlm_generic_payload tx;
        tx.set_address(addr);
        return socket->get_direct_mem_ptr(tx, out);
    }

private:
    void invalidate(sc_dt::uint64 s, sc_dt::uint64 e) { invalidated.emplace_back(s, e); }
};

// A target that records the (local) address it saw and can revoke DMI.
struct ProbeTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<ProbeTarget> socket{"socket"};
    uint64_t last_addr = ~0ull;
    explicit ProbeTarget(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_b_transport(this, &ProbeTarget::b_transport);
    }
    void revoke(uint64_t s, uint64_t e) { socket->invalidate_direct_mem_ptr(s, e); }

private:
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time&) {
        last_addr = tx.get_address();
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

}  // namespace npu::test
