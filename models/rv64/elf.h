// Firmware ELF files (RISC-V, 64-bit, little-endian) read with libelf: what to load where (each
// PT_LOAD segment at its physical address, as the K210's boot ROM and picolibc's .data
// relocation expect), the entry point, and the symbols, for messages and traces ("main+0x14").
// Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace npu::rv64 {

struct ElfSegment {
    uint64_t addr = 0;           // p_paddr
    std::vector<uint8_t> bytes;  // p_filesz bytes from the file, then zeros up to p_memsz
};

struct ElfImage {
    std::string file;
    uint64_t entry = 0;
    std::vector<ElfSegment> segments;
    std::map<uint64_t, std::string> symbols;  // functions and objects by address
    // The executable sections (SHF_EXECINSTR, loaded): address and size, for code rewrites.
    std::vector<std::pair<uint64_t, uint64_t>> code;

    std::optional<uint64_t> symbol(const std::string& name) const;
    // "name+0x14" for the symbol at or below `addr` (or "name" at it), else "0x...".
    std::string describe(uint64_t addr) const;
};

// Throws sim::Error "FILE: ..." naming what is wrong: not an ELF file, not RISC-V 64-bit
// little-endian, not an executable, no loadable segment, a segment past the end of the file.
ElfImage load_elf(const std::string& path);

}  // namespace npu::rv64
