// RISC-V semihosting (the ARM semihosting operations, called with `slli x0,x0,0x1f; ebreak;
// srai x0,x0,7`, a0 = operation, a1 = parameter block of 8-byte fields on RV64; the RISC-V
// semihosting spec and ARM's "Semihosting for AArch32 and AArch64"), as picolibc's libsemihost
// uses it: console output, files of the host, the command line, the clock and exit. Pure C++:
// the hart's memory comes through callbacks, the clock from the caller's simulated time.
// Trust: the console, the command line, the clock and exit touch nothing of the host. Files do,
// so they are confined: a file opened for reading must resolve (symlinks followed) inside
// `read_root`, one opened for writing inside `write_root`; an empty root refuses them all. A
// refused open fails in the firmware (-1, errno EACCES) and is reported, one line naming it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace npu::rv64 {

struct GuestMemory {
    std::function<bool(uint64_t addr, void* dst, size_t n)> read;
    std::function<bool(uint64_t addr, const void* src, size_t n)> write;
};

class Semihost {
public:
    struct Options {
        std::vector<std::string> args;                    // argv, the program's name first
        std::function<void(const std::string&)> console;  // what the firmware prints
        std::function<uint64_t()> centiseconds;           // SYS_CLOCK: simulated time since start
        std::string read_root;     // files opened for reading resolve inside it ("": none)
        std::string write_root;    // files opened for writing (w, a, r+) inside it ("": none)
        std::string no_root_hint;  // said when a root is empty: how to give one
        std::function<void(const std::string&)> refused;  // one line per refused open
    };
    explicit Semihost(Options o);
    ~Semihost();
    Semihost(const Semihost&) = delete;
    Semihost& operator=(const Semihost&) = delete;

    // Performs operation `op` with the parameter (block) `param`; returns what goes into a0.
    // A bad guest address makes the operation fail (-1, errno EFAULT), never the host.
    uint64_t call(uint64_t op, uint64_t param, const GuestMemory& mem);

    bool exited() const { return m_exited; }
    int exit_code() const { return m_exit_code; }  // 0 ok; a failing firmware's code, else 1
    const std::string& exit_reason() const { return m_exit_reason; }
    // Operations the firmware asked for that are not supported, one line each.
    const std::vector<std::string>& unsupported() const { return m_unsupported; }
    // Files the firmware tried to open outside its roots, one line each.
    const std::vector<std::string>& refused() const { return m_refused; }

private:
    uint64_t open(const std::vector<uint64_t>& f, const GuestMemory& mem);
    // The host path of `name` inside the root for `mode`, or "" (and the refusal said).
    std::string confined(const std::string& name, const char* mode);
    uint64_t console(uint64_t op, uint64_t param, const GuestMemory& mem);
    uint64_t on_file(uint64_t op, const std::vector<uint64_t>& f);
    uint64_t cmdline(uint64_t buf, uint64_t size, uint64_t param, const GuestMemory& mem);
    uint64_t write(const std::vector<uint64_t>& f, const GuestMemory& mem);
    uint64_t read(const std::vector<uint64_t>& f, const GuestMemory& mem);
    uint64_t exit(uint64_t reason, uint64_t subcode);
    uint64_t fail(int err);

    Options m_o;
    std::map<uint64_t, std::FILE*> m_files;  // handles 3.. (0, 1, 2: the console's :tt)
    uint64_t m_next = 3;
    int m_errno = 0;
    bool m_exited = false;
    int m_exit_code = 0;
    std::string m_exit_reason;
    std::vector<std::string> m_unsupported;
    std::vector<std::string> m_refused;
};

}  // namespace npu::rv64
