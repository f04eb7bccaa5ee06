// Deterministic counters for firmware: Unicorn (QEMU without icount) answers reads of cycle,
// time, instret, mcycle and minstret with the host's clock, so the same firmware would see other
// values on every run; and every Unicorn instance answers mhartid with 0, so two harts could not
// tell themselves apart. The loader rewrites each such CSR read (csrr rd, <counter>: csrrs/csrrc
// with x0, csrrsi/csrrci with 0) into a load of the same length from a small device window the
// hart answers with simulated values: `ld rd, off(x0)`. Code is decoded linearly (16/32-bit by
// the encoding) from the start of each executable section. Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>

namespace npu::rv64 {

// The window the rewritten loads read (inside page 0; the rest of the page stays a bus fault).
constexpr uint64_t kCounterPage = 0x0, kCounterPageBytes = 0x1000;
constexpr uint64_t kCounterCycle = 0x7e0;    // cycle, mcycle: CPU cycles since reset
constexpr uint64_t kCounterTime = 0x7e8;     // time: the CLINT's mtime
constexpr uint64_t kCounterInstret = 0x7f0;  // instret, minstret: instructions retired
constexpr uint64_t kCounterHartId = 0x7f8;   // mhartid: the reading hart's number

// Rewrites the counter reads in `code` (`size` bytes of instructions); returns how many, and adds
// the mhartid reads among them to `*hartid_reads` when given.
size_t redirect_counter_reads(uint8_t* code, size_t size, size_t* hartid_reads = nullptr);

}  // namespace npu::rv64
