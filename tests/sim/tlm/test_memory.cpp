// Memory: b_transport with latency, DMI, transport_dbg, and error responses for bad accesses.
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/core/error.h"
#include "sim/tlm/memory.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

// A bare initiator that issues one transaction at a time from the test body (b_transport does
// not wait, so no process is needed).
struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
    explicit Initiator(sc_core::sc_module_name n)
        : sc_module(n) {}

    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                                    unsigned len, sc_time& delay, const uint8_t* be = nullptr,
                                    unsigned be_len = 0, unsigned streaming = 0) {
        tlm::tlm_generic_payload tx;
        tx.set_command(cmd);
        tx.set_address(addr);
        tx.set_data_ptr(data);
        tx.set_data_length(len);
        tx.set_streaming_width(streaming ? streaming : len);
        tx.set_byte_enable_ptr(const_cast<uint8_t*>(be));
        tx.set_byte_enable_length(be_len);
        tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(tx, delay);
        last_dmi_allowed = tx.is_dmi_allowed();
        return tx.get_response_status();
    }
    bool last_dmi_allowed = false;
};

class MemoryTest : public ScTest {
protected:
    void SetUp() override {
        ScTest::SetUp();
        mem = std::make_unique<sim::Memory>("mem", sim::MemoryConfig{4096, 7.5, 3, true});
        ini = std::make_unique<Initiator>("ini");
        ini->socket.bind(mem->socket);
    }
    std::unique_ptr<sim::Memory> mem;
    std::unique_ptr<Initiator> ini;
};

TEST_F(MemoryTest, WriteThenReadWithLatency) {
    uint8_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t r[8] = {};
    sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(ini->access(tlm::TLM_WRITE_COMMAND, 0x100, w, 8, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ps(delay), 3000u);  // write latency 3 ns
    EXPECT_TRUE(ini->last_dmi_allowed);
    EXPECT_EQ(ini->access(tlm::TLM_READ_COMMAND, 0x100, r, 8, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ps(delay), 3000u + 7500u);  // plus read latency 7.5 ns
    EXPECT_EQ(std::vector<uint8_t>(r, r + 8), std::vector<uint8_t>(w, w + 8));
    EXPECT_EQ(mem->data()[0x107], 8);
    const auto j = mem->stats().to_json();
    EXPECT_EQ(j["reads"]["value"], 1);
    EXPECT_EQ(j["bytes_written"]["value"], 8);
}

TEST_F(MemoryTest, OutOfRangeIsAnAddressError) {
    uint8_t buf[8] = {};
    sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(ini->access(tlm::TLM_READ_COMMAND, 4096, buf, 1, delay),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(ini->access(tlm::TLM_WRITE_COMMAND, 4092, buf, 8, delay),  // straddles the end
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(ini->access(tlm::TLM_READ_COMMAND, ~0ull - 2, buf, 8, delay),  // would wrap
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(ps(delay), 0u);
    EXPECT_EQ(mem->stats().to_json()["errors"]["value"], 3);
}

TEST_F(MemoryTest, ByteEnablesAndStreaming) {
    uint8_t w[4] = {0xa1, 0xa2, 0xa3, 0xa4};
    const uint8_t be[2] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};  // repeats: on, off
    sc_time delay = sc_core::SC_ZERO_TIME;
    std::memset(mem->data() + 0x10, 0xee, 4);
    EXPECT_EQ(ini->access(tlm::TLM_WRITE_COMMAND, 0x10, w, 4, delay, be, 2), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem->data()[0x10], 0xa1);
    EXPECT_EQ(mem->data()[0x11], 0xee);
    EXPECT_EQ(mem->data()[0x12], 0xa3);
    EXPECT_EQ(mem->data()[0x13], 0xee);
    EXPECT_EQ(ini->access(tlm::TLM_READ_COMMAND, 0x10, w, 4, delay, nullptr, 0, 2),
              tlm::TLM_BURST_ERROR_RESPONSE);
}

TEST_F(MemoryTest, DmiGrantsTheWholeMemoryWithLatencies) {
    tlm::tlm_generic_payload tx;
    tx.set_address(0x20);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini->socket->get_direct_mem_ptr(tx, dmi));
    EXPECT_EQ(dmi.get_start_address(), 0u);
    EXPECT_EQ(dmi.get_end_address(), 4095u);
    EXPECT_EQ(dmi.get_dmi_ptr(), mem->data());
    EXPECT_TRUE(dmi.is_read_write_allowed());
    EXPECT_EQ(ps(dmi.get_read_latency()), 7500u);
    EXPECT_EQ(ps(dmi.get_write_latency()), 3000u);
}

TEST_F(MemoryTest, DebugTransportClipsAtTheEnd) {
    uint8_t buf[16] = {};
    std::memset(mem->data() + 4088, 0x5a, 8);
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(4088);
    tx.set_data_ptr(buf);
    tx.set_data_length(16);
    EXPECT_EQ(ini->socket->transport_dbg(tx), 8u);
    EXPECT_EQ(buf[7], 0x5a);
    tx.set_address(5000);
    EXPECT_EQ(ini->socket->transport_dbg(tx), 0u);
}

TEST_F(MemoryTest, ZeroSizeIsAConfigError) {
    try {
        sim::Memory bad("bad", sim::MemoryConfig{0, 0, 0, true});
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "memory bad: size_bytes must be positive");
    }
}

}  // namespace
}  // namespace npu::test
