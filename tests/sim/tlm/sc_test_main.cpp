// main() for the SystemC test executable: silences the banner, routes SystemC reports through
// npusim's handler (warnings fail the running test unless expected), then runs GoogleTest.
#include <cstdlib>

#include "sim/tlm/kernel.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {

namespace {
ExpectWarnings* g_expect = nullptr;
}

void on_warning(const std::string& message) {
    if (g_expect != nullptr) {
        g_expect->m_messages.push_back(message);
    } else {
        ADD_FAILURE() << "unexpected SystemC warning: " << message;
    }
}

ExpectWarnings::ExpectWarnings() {
    g_expect = this;
}

ExpectWarnings::~ExpectWarnings() {
    g_expect = nullptr;
}

void ScTest::SetUp() {
    sim::reset_simulation();
    sim::install_report_handler(on_warning);
}

}  // namespace npu::test

int sc_main(int argc, char* argv[]) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

int main(int argc, char* argv[]) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
