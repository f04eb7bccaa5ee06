// Speed of the infrastructure every model stands on (Google Benchmark; run the release build):
//   build/release/tests/npusim_bench
// - DMI memcpy through the Router (AxiPort with DMI), per transfer size
// - LT b_transport through the Router with a 1 us quantum (one 8-byte access per call)
// - RegisterBank read/write
// Numbers measured on the project machine are in docs/performance.md.
#include <cstdlib>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <benchmark/benchmark.h>

#include "sim/core/regs.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/kernel.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/router.h"

namespace {

using namespace npu;

struct Soc : sc_core::sc_module {
    sim::Router router{"router"};
    sim::Memory ram{"ram", sim::MemoryConfig{16u << 20, 5, 5, true}};
    sim::AxiPort port;
    tlm_utils::simple_initiator_socket<Soc> lt{"lt"};
    explicit Soc(sc_core::sc_module_name n)
        : sc_module(n)
        , port("port", sim::BusConfig{}) {
        port.socket.bind(router.target_socket);
        lt.bind(router.target_socket);
        router.map("ram", 0x80000000, 16u << 20, router.bind_target(ram.socket));
    }
};

void BM_DmiMemcpyThroughRouter(benchmark::State& state) {
    sim::reset_simulation();
    Soc soc("soc");
    sc_core::sc_start(
        sc_core::SC_ZERO_TIME);  // elaborate: multi-sockets bind at end of elaboration
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<uint8_t> buf(n, 1);
    sim::QuantumKeeper qk;
    soc.port.read(0x80000000, buf.data(), n, qk.local());  // earn DMI
    for (auto _ : state) {
        qk.local() = sc_core::SC_ZERO_TIME;
        soc.port.read(0x80000000, buf.data(), n, qk.local());
        benchmark::DoNotOptimize(buf.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
BENCHMARK(BM_DmiMemcpyThroughRouter)->Arg(8)->Arg(4096)->Arg(1 << 20);

// A raw access through a DMI pointer the router granted (what a CPU model's load/store costs).
void BM_DmiPointerAccess8B(benchmark::State& state) {
    sim::reset_simulation();
    Soc soc("soc");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    tlm::tlm_generic_payload tx;
    tx.set_address(0x80000000);
    tlm::tlm_dmi dmi;
    if (!soc.lt->get_direct_mem_ptr(tx, dmi)) {
        state.SkipWithError("no DMI");
        return;
    }
    uint64_t addr = 0x80000000, v = 0, sum = 0;
    for (auto _ : state) {
        // The bounds check an initiator makes before using the pointer is part of the cost.
        if (addr >= dmi.get_start_address() && addr + 7 <= dmi.get_end_address()) {
            std::memcpy(&v, dmi.get_dmi_ptr() + (addr - dmi.get_start_address()), 8);
        }
        sum += v;
        addr = 0x80000000 + ((addr + 8) & 0xffff8);
    }
    benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_DmiPointerAccess8B);

// One LT access (b_transport through the router into memory) plus quantum keeping, as a CPU model
// or driver does it.
struct LtBench : sc_core::sc_module {
    Soc soc{"soc"};
    int64_t iterations = 0;
    benchmark::State* state = nullptr;
    SC_HAS_PROCESS(LtBench);
    explicit LtBench(sc_core::sc_module_name n)
        : sc_module(n) {
        SC_THREAD(run);
    }
    void run() {
        sim::QuantumKeeper qk;
        uint64_t v = 0;
        tlm::tlm_generic_payload tx;
        tx.set_data_ptr(reinterpret_cast<uint8_t*>(&v));
        tx.set_data_length(8);
        tx.set_streaming_width(8);
        tx.set_command(tlm::TLM_READ_COMMAND);
        uint64_t addr = 0;
        for (auto _ : *state) {
            tx.set_address(0x80000000 + (addr & 0xfffff8));
            tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            soc.lt->b_transport(tx, qk.local());
            qk.sync_if_needed();
            addr += 8;
        }
    }
};

void BM_LtTransactionQuantum1us(benchmark::State& state) {
    sim::reset_simulation();
    sim::set_global_quantum(sc_core::sc_time(1, sc_core::SC_US));
    LtBench b("b");
    b.state = &state;
    sc_core::sc_start();
}
BENCHMARK(BM_LtTransactionQuantum1us);

void BM_RegisterBankReadWrite(benchmark::State& state) {
    std::vector<sim::Register> regs;
    regs.reserve(9);
    for (uint64_t i = 0; i < 9; ++i) {
        regs.emplace_back(
            sim::Register::Spec{"R" + std::to_string(i), i * 8, 8, 0, sim::Access::RW});
    }
    sim::RegisterBank bank("kpu", 0x48);
    for (auto& r : regs) {
        bank.add(r);
    }
    uint64_t v = 0;
    uint64_t off = 0;
    for (auto _ : state) {
        bank.write(off, reinterpret_cast<const uint8_t*>(&v), 8);
        bank.read(off, reinterpret_cast<uint8_t*>(&v), 8);
        ++v;
        off = (off + 8) % 0x48;
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2);
}
BENCHMARK(BM_RegisterBankReadWrite);

}  // namespace

// libsystemc references sc_main; this program drives the kernel from main() itself.
int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 0;
}

int main(int argc, char** argv) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
