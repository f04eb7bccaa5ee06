#include "sim/tlm/router.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::sim {

namespace {
constexpr const char* kMsgType = "npusim/router";

// Restores the initiator's address when the transaction returns (TLM-2.0 rule for interconnects).
class AddressRestore {
public:
    explicit AddressRestore(tlm::tlm_generic_payload& tx)
        : m_tx(tx)
        , m_addr(tx.get_address()) {}
    ~AddressRestore() { m_tx.set_address(m_addr); }
    AddressRestore(const AddressRestore&) = delete;
    AddressRestore& operator=(const AddressRestore&) = delete;

private:
    tlm::tlm_generic_payload& m_tx;
    sc_dt::uint64 m_addr;
};
}  // namespace

Router::Router(sc_core::sc_module_name name)
    : sc_module(name)
    , target_socket("target_socket")
    , initiator_socket("initiator_socket")
    , m_stats(basename())
    , m_transactions(
          m_stats.counter("transactions", "transactions", "b_transport calls routed to a target"))
    , m_unmapped(
          m_stats.counter("unmapped_accesses", "transactions",
                          "accesses that hit no window (answered TLM_ADDRESS_ERROR_RESPONSE)")) {
    target_socket.register_b_transport(this, &Router::b_transport);
    target_socket.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
    target_socket.register_transport_dbg(this, &Router::transport_dbg);
    initiator_socket.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
}

unsigned Router::bind_target(tlm::tlm_base_target_socket<>& target) {
    initiator_socket.bind(target);
    return m_ports++;
}

void Router::map(const std::string& name, uint64_t base, uint64_t size, unsigned port,
                 uint64_t target_base) {
    NPU_ASSERT(port < m_ports, "router {}: window {} maps to unbound port {}", this->name(), name,
               port);
    m_last = nullptr;  // adding may move the windows
    try {
        m_map.add({name, base, size, port, target_base});
    } catch (const Error& e) {
        throw e.in(fmt::format("router {}", this->name()));
    }
}

void Router::unmapped(const tlm::tlm_generic_payload& tx) {
    ++m_unmapped;
    SC_REPORT_WARNING(kMsgType, fmt::format("{}: {} of {} bytes at {:#x} hits no mapped window",
                                            name(), tx.is_read() ? "read" : "write",
                                            tx.get_data_length(), tx.get_address())
                                    .c_str());
}

const MapWindow* Router::decode(uint64_t addr, uint64_t len) {
    if (m_last != nullptr && m_last->contains(addr) && len - 1 <= m_last->last() - addr) {
        return m_last;
    }
    const MapWindow* w = m_map.decode(addr, len);
    if (w != nullptr) {
        m_last = w;
    }
    return w;
}

void Router::b_transport(int /*id*/, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
    const uint64_t addr = tx.get_address();
    const MapWindow* w = decode(addr, std::max<uint64_t>(tx.get_data_length(), 1));
    if (w == nullptr) {
        unmapped(tx);
        tx.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    ++m_transactions;
    AddressRestore restore(tx);
    tx.set_address(addr - w->base + w->target_base);
    initiator_socket[static_cast<int>(w->port)]->b_transport(tx, delay);
}

bool Router::get_direct_mem_ptr(int /*id*/, tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi) {
    const uint64_t addr = tx.get_address();
    const MapWindow* w = m_map.decode(addr);
    if (w == nullptr) {
        return false;
    }
    AddressRestore restore(tx);
    tx.set_address(addr - w->base + w->target_base);
    const bool ok = initiator_socket[static_cast<int>(w->port)]->get_direct_mem_ptr(tx, dmi);
    // The target answers in its own addresses, possibly beyond this window: clip the grant to the
    // window, move the pointer along with a clipped start, and translate back to global addresses.
    // A refusal also describes a range (where DMI will not be granted); translate it the same way.
    const uint64_t lo = std::max<uint64_t>(dmi.get_start_address(), w->target_base);
    const uint64_t hi = std::min<uint64_t>(dmi.get_end_address(), w->target_base + (w->size - 1));
    if (lo > hi) {
        dmi.init();  // nothing of the grant lies in this window
        return false;
    }
    if (ok) {
        dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (lo - dmi.get_start_address()));
    }
    dmi.set_start_address(lo - w->target_base + w->base);
    dmi.set_end_address(hi - w->target_base + w->base);
    return ok;
}

unsigned Router::transport_dbg(int /*id*/, tlm::tlm_generic_payload& tx) {
    const uint64_t addr = tx.get_address();
    const MapWindow* w = m_map.decode(addr);
    if (w == nullptr) {
        return 0;
    }
    AddressRestore restore(tx);
    const unsigned len = tx.get_data_length();
    // A debug access never reaches past its window.
    const unsigned clipped = static_cast<unsigned>(std::min<uint64_t>(len, w->last() - addr + 1));
    tx.set_address(addr - w->base + w->target_base);
    tx.set_data_length(clipped);
    const unsigned n = initiator_socket[static_cast<int>(w->port)]->transport_dbg(tx);
    tx.set_data_length(len);
    return n;
}

void Router::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
    for (const MapWindow& w : m_map.windows()) {
        if (w.port != static_cast<unsigned>(port)) {
            continue;
        }
        const uint64_t lo = std::max<uint64_t>(start, w.target_base);
        const uint64_t hi = std::min<uint64_t>(end, w.target_base + (w.size - 1));
        if (lo > hi) {
            continue;
        }
        for (unsigned i = 0; i < target_socket.size(); ++i) {
            target_socket[static_cast<int>(i)]->invalidate_direct_mem_ptr(
                lo - w.target_base + w.base, hi - w.target_base + w.base);
        }
    }
}

}  // namespace npu::sim
