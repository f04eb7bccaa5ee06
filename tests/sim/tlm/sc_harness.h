// Harness for SystemC component tests: every test starts in a fresh simulation context, and a
// SystemC warning fails the test unless the test declared it with ExpectWarnings.
#pragma once

#include <string>
#include <vector>

#include <systemc>

#include <gtest/gtest.h>

namespace npu::test {

// Warnings raised while an ExpectWarnings is alive are recorded instead of failing the test.
class ExpectWarnings {
public:
    ExpectWarnings();
    ~ExpectWarnings();
    ExpectWarnings(const ExpectWarnings&) = delete;
    ExpectWarnings& operator=(const ExpectWarnings&) = delete;
    const std::vector<std::string>& messages() const { return m_messages; }

private:
    friend void on_warning(const std::string& message);
    std::vector<std::string> m_messages;
};

// The handler ScTest installs (exposed for tests that reset the simulation themselves).
void on_warning(const std::string& message);

class ScTest : public ::testing::Test {
protected:
    void SetUp() override;
};

// Runs elaboration (and time 0) so that sockets are bound; needed before calling b_transport
// from a test body (multi-passthrough sockets complete their binding at end of elaboration).
inline void elaborate() {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

// Picoseconds of an sc_time, for exact comparisons with hand-derived numbers.
inline uint64_t ps(const sc_core::sc_time& t) {
    return static_cast<uint64_t>(t.value() / sc_core::sc_time(1, sc_core::SC_PS).value());
}

}  // namespace npu::test
