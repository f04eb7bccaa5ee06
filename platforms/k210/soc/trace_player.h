// A register-level trace player in the NVDLA cmod style: a text script of bus accesses and
// checks, played through the platform's CPU port, for firmware bring-up and integration tests.
//   load_mem  ADDR BLOB           write a blob at ADDR
//   write_reg ADDR VALUE          64-bit write
//   read_reg  ADDR MASK EXPECT    64-bit read; (value & MASK) must equal EXPECT
//   wait_irq  kpu|dma0..dma5      wait until the line is high
//   compare_mem ADDR BLOB         read len(blob) bytes at ADDR; they must equal the blob
//   dump_mem  ADDR LEN NAME       read LEN bytes at ADDR into an output file NAME
// BLOB is @name (a blob the caller gives) or a file (its bytes; a .npy: its array's data), relative
// to the script's folder. '#' starts a comment; numbers take 0x hex. A bad line is a sim::Error
// naming its line number. (npusim run --script FILE; docs/k210_platform.md "Register scripts".)
#pragma once

#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "platforms/k210/soc/k210_platform.h"
#include "sim/tlm/quantum.h"

namespace npu::k210 {

struct TraceStep {
    enum Op { LoadMem, WriteReg, ReadReg, WaitIrq, CompareMem, DumpMem } op;
    int line = 0;
    uint64_t addr = 0, value = 0, mask = 0;  // value: dump_mem's LEN
    std::string name;                        // blob, IRQ line or dump file
};

using Blobs = std::map<std::string, std::vector<uint8_t>>;

// Parses a script; a BLOB operand `@name` or `file` must be a key of `blobs` ("name" or "file").
// Throws sim::Error "<source>:<line>: <problem>".
std::vector<TraceStep> parse_trace(const std::string& text, const std::string& source,
                                   const Blobs& blobs);

// A script file with the files its lines name read (relative to its folder), keyed by the
// name as written.
struct TraceScript {
    std::vector<TraceStep> steps;
    Blobs blobs;
};
TraceScript load_trace_script(const std::string& path);

class TracePlayer : public sc_core::sc_module {
public:
    TracePlayer(sc_core::sc_module_name name, K210Platform& platform, std::vector<TraceStep> steps,
                Blobs blobs);
    // Failed checks, one line each ("line 12: read_reg 0x40800008: got 0x0, mask 0x1, expected
    // 0x1").
    const std::vector<std::string>& failures() const { return m_failures; }
    bool finished() const { return m_finished; }
    // The step the player is at (waiting on, when not finished), from 0.
    size_t at() const { return m_at; }
    const std::vector<TraceStep>& steps() const { return m_steps; }
    // dump_mem's files, by name.
    const Blobs& dumps() const { return m_dumps; }

private:
    void run();
    bool play(const TraceStep& s);

    K210Platform& m_p;
    std::vector<TraceStep> m_steps;
    Blobs m_blobs;
    Blobs m_dumps;
    std::vector<std::string> m_failures;
    bool m_finished = false;
    size_t m_at = 0;
    sim::QuantumKeeper m_qk;
};

}  // namespace npu::k210
