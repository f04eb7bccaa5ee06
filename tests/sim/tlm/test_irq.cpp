#include "sim/tlm/irq.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;

struct IrqBench : sc_core::sc_module {
    sim::IrqLine irq{"irq"};
    sc_core::sc_time seen;
    SC_HAS_PROCESS(IrqBench);
    explicit IrqBench(sc_core::sc_module_name n)
        : sc_module(n) {
        SC_THREAD(device);
        SC_THREAD(driver);
    }
    void device() {
        wait(250, SC_NS);
        irq.set(true);
        irq.set(true);  // no second edge
        wait(10, SC_NS);
        irq.set(false);
        wait(10, SC_NS);
        irq.set(true);
    }
    void driver() {
        irq.wait_high();
        seen = sc_core::sc_time_stamp();
    }
};

class IrqTest : public ScTest {};

TEST_F(IrqTest, DriverWakesAtTheEdge) {
    IrqBench b("b");
    sc_core::sc_start();
    EXPECT_EQ(ps(b.seen), 250'000u);
    EXPECT_EQ(b.irq.raise_count(), 2u);
    EXPECT_TRUE(b.irq.level());
}

}  // namespace
}  // namespace npu::test
