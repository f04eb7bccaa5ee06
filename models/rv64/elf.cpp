#include "models/rv64/elf.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "sim/core/error.h"

namespace npu::rv64 {

namespace {

// The open file and libelf's handle, closed however reading ends.
struct ElfFile {
    int fd = -1;
    Elf* elf = nullptr;
    ~ElfFile() {
        if (elf != nullptr) {
            elf_end(elf);
        }
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

void read_symbols(Elf* elf, ElfImage& img) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) != nullptr && sh.sh_type == SHT_PROGBITS &&
            (sh.sh_flags & SHF_EXECINSTR) != 0 && (sh.sh_flags & SHF_ALLOC) != 0 &&
            sh.sh_size > 0) {
            img.code.emplace_back(sh.sh_addr, sh.sh_size);
        }
        if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) {
            continue;
        }
        Elf_Data* data = elf_getdata(scn, nullptr);
        const size_t n = data == nullptr ? 0 : sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n; ++i) {
            GElf_Sym sym;
            if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) {
                continue;
            }
            const int type = GELF_ST_TYPE(sym.st_info);
            const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if ((type == STT_FUNC || type == STT_OBJECT || type == STT_NOTYPE) && name != nullptr &&
                name[0] != '\0' && name[0] != '$' && sym.st_shndx != SHN_UNDEF &&
                sym.st_shndx != SHN_ABS) {
                img.symbols.emplace(sym.st_value, name);  // the first name of an address stays
            }
        }
    }
}

// Every PT_LOAD segment at its physical address, zero-filled to its size in memory.
void read_segments(Elf* elf, const std::string& path, ElfImage& img) {
    const auto fail = [&](const std::string& why) {
        return sim::Error(path + ": " + why);
    };
    size_t count = 0;
    if (elf_getphdrnum(elf, &count) != 0) {
        throw fail(fmt::format("unreadable program headers ({})", elf_errmsg(-1)));
    }
    size_t file_size = 0;
    const char* raw = elf_rawfile(elf, &file_size);
    for (size_t i = 0; i < count; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD ||
            ph.p_memsz == 0) {
            continue;
        }
        if (raw == nullptr || ph.p_offset > file_size || ph.p_filesz > file_size - ph.p_offset ||
            ph.p_filesz > ph.p_memsz || ph.p_memsz > (uint64_t{1} << 32)) {
            throw fail(
                fmt::format("segment {} ({:#x} bytes at offset {:#x}, {:#x} in memory) "
                            "does not fit the file of {} bytes",
                            i, ph.p_filesz, ph.p_offset, ph.p_memsz, file_size));
        }
        ElfSegment s;
        s.addr = ph.p_paddr;
        s.bytes.assign(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
        s.bytes.resize(ph.p_memsz, 0);
        img.segments.push_back(std::move(s));
    }
}

}  // namespace

ElfImage load_elf(const std::string& path) {
    const auto fail = [&](const std::string& why) {
        return sim::Error(path + ": " + why);
    };
    elf_version(EV_CURRENT);
    ElfFile f;
    f.fd = ::open(path.c_str(), O_RDONLY);
    if (f.fd < 0) {
        throw fail("cannot open the firmware file");
    }
    f.elf = elf_begin(f.fd, ELF_C_READ, nullptr);
    if (f.elf == nullptr || elf_kind(f.elf) != ELF_K_ELF) {
        throw fail("not an ELF file");
    }
    GElf_Ehdr eh;
    if (gelf_getehdr(f.elf, &eh) == nullptr) {
        throw fail(fmt::format("unreadable ELF header ({})", elf_errmsg(-1)));
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_machine != EM_RISCV) {
        throw fail(
            fmt::format("an ELF for machine {}, {}-bit; expected RISC-V (EM_RISCV, 243), "
                        "64-bit, little-endian",
                        eh.e_machine, eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32));
    }
    if (eh.e_type != ET_EXEC) {
        throw fail("not an executable (ET_EXEC): link the firmware, with its linker script");
    }
    ElfImage img;
    img.file = path;
    img.entry = eh.e_entry;
    read_segments(f.elf, path, img);
    if (img.segments.empty()) {
        throw fail("no loadable segment (PT_LOAD)");
    }
    read_symbols(f.elf, img);
    return img;
}

std::optional<uint64_t> ElfImage::symbol(const std::string& name) const {
    for (const auto& [addr, n] : symbols) {
        if (n == name) {
            return addr;
        }
    }
    return std::nullopt;
}

std::string ElfImage::describe(uint64_t addr) const {
    auto it = symbols.upper_bound(addr);
    if (it == symbols.begin()) {
        return fmt::format("{:#x}", addr);
    }
    --it;
    return addr == it->first ? it->second : fmt::format("{}+{:#x}", it->second, addr - it->first);
}

}  // namespace npu::rv64
