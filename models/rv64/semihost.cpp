#include "models/rv64/semihost.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include <fmt/format.h>

#include "sim/core/text.h"

namespace npu::rv64 {

namespace {

enum Op : uint64_t {
    kOpen = 0x01,
    kClose = 0x02,
    kWriteC = 0x03,
    kWrite0 = 0x04,
    kWrite = 0x05,
    kRead = 0x06,
    kIsTty = 0x09,
    kSeek = 0x0a,
    kFlen = 0x0c,
    kClock = 0x10,
    kTime = 0x11,
    kErrno = 0x13,
    kCmdline = 0x15,
    kExit = 0x18,
    kExitExtended = 0x20,
};
constexpr uint64_t kFail = ~uint64_t{0};        // -1
constexpr uint64_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
constexpr uint64_t kConsoleIn = 0, kConsoleOut = 1, kConsoleErr = 2;
constexpr size_t kMaxTransfer = 64u << 20;

// The parameter block's first n 8-byte fields.
bool fields(const GuestMemory& mem, uint64_t at, size_t n, std::vector<uint64_t>& out) {
    out.assign(n, 0);
    return mem.read(at, out.data(), n * 8);
}

bool guest_string(const GuestMemory& mem, uint64_t at, size_t len, std::string& s) {
    if (len > 4096) {
        return false;
    }
    s.assign(len, '\0');
    return mem.read(at, s.data(), len);
}

// Whether `p` is `root` or lies below it (both canonical).
bool inside(const std::filesystem::path& p, const std::filesystem::path& root) {
    const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    return r == root.end();
}

// `s` for a message: control and non-ASCII bytes as \xNN (a name from the firmware cannot
// rewrite the terminal or the report's lines).
std::string printable(const std::string& s) {
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        out += u >= 0x20 && u < 0x7f && c != '\\' ? std::string(1, c) : fmt::format("\\x{:02x}", u);
    }
    return out;
}

}  // namespace

Semihost::Semihost(Options o)
    : m_o(std::move(o)) {
}

Semihost::~Semihost() {
    for (auto& [h, f] : m_files) {
        std::fclose(f);
    }
}

uint64_t Semihost::fail(int err) {
    m_errno = err;
    return kFail;
}

uint64_t Semihost::call(uint64_t op, uint64_t param, const GuestMemory& mem) {
    std::vector<uint64_t> f;
    const auto need = [&](size_t n) {
        return fields(mem, param, n, f);
    };
    switch (op) {
    case kOpen: return need(3) ? open(f, mem) : fail(EFAULT);
    case kClose:
    case kSeek:
    case kFlen: return need(op == kSeek ? 2 : 1) ? on_file(op, f) : fail(EFAULT);
    case kWriteC:
    case kWrite0: return console(op, param, mem);
    case kWrite: return need(3) ? write(f, mem) : fail(EFAULT);
    case kRead: return need(3) ? read(f, mem) : fail(EFAULT);
    case kIsTty: return need(1) ? (f[0] <= kConsoleErr ? 1 : 0) : fail(EFAULT);
    case kClock: return m_o.centiseconds ? m_o.centiseconds() : 0;
    case kTime: return 0;  // a fixed epoch: runs stay deterministic
    case kErrno: return static_cast<uint64_t>(m_errno);
    case kCmdline: return need(2) ? cmdline(f[0], f[1], param, mem) : fail(EFAULT);
    case kExit:
    case kExitExtended: return need(2) ? exit(f[0], f[1]) : fail(EFAULT);
    default:
        m_unsupported.push_back(fmt::format("semihosting operation {:#x}", op));
        return fail(ENOSYS);
    }
}

// SYS_WRITEC (one character at `param`) and SYS_WRITE0 (a string ending in NUL).
uint64_t Semihost::console(uint64_t op, uint64_t param, const GuestMemory& mem) {
    std::string s;
    if (op == kWriteC) {
        char c = 0;
        if (!mem.read(param, &c, 1)) {
            return fail(EFAULT);
        }
        s = c;
    }
    for (char c = 0; op == kWrite0 && mem.read(param + s.size(), &c, 1) && c != '\0' &&
                     s.size() < kMaxTransfer;) {
        s += c;
    }
    m_o.console(s);
    return 0;
}

// SYS_CLOSE, SYS_SEEK and SYS_FLEN on a handle (f[0]); the console's handles close as no-ops.
uint64_t Semihost::on_file(uint64_t op, const std::vector<uint64_t>& f) {
    if (op == kClose && f[0] <= kConsoleErr) {
        return 0;
    }
    const auto it = m_files.find(f[0]);
    if (it == m_files.end()) {
        return fail(EBADF);
    }
    std::FILE* file = it->second;
    if (op == kClose) {
        std::fclose(file);
        m_files.erase(it);
        return 0;
    }
    if (op == kSeek) {
        return std::fseek(file, static_cast<long>(f[1]), SEEK_SET) == 0 ? 0 : fail(EINVAL);
    }
    const long at = std::ftell(file);
    std::fseek(file, 0, SEEK_END);
    const long len = std::ftell(file);
    std::fseek(file, at, SEEK_SET);
    return static_cast<uint64_t>(len);
}

// SYS_GET_CMDLINE: the program and its arguments into buf (size bytes, with the NUL), and the
// length into the block's second field.
uint64_t Semihost::cmdline(uint64_t buf, uint64_t size, uint64_t param, const GuestMemory& mem) {
    std::string line;
    for (const std::string& a : m_o.args) {
        line += (line.empty() ? "" : " ") + a;
    }
    if (line.size() + 1 > size) {
        return fail(ENOSPC);
    }
    const uint64_t len = line.size();
    return mem.write(buf, line.c_str(), line.size() + 1) && mem.write(param + 8, &len, 8)
               ? 0
               : fail(EFAULT);
}

uint64_t Semihost::open(const std::vector<uint64_t>& f, const GuestMemory& mem) {
    std::string name;
    if (!guest_string(mem, f[0], f[2], name)) {
        return fail(EFAULT);
    }
    static const char* const kModes[] = {"r",  "rb",  "r+", "r+b", "w",  "wb",
                                         "w+", "w+b", "a",  "ab",  "a+", "a+b"};
    if (f[1] >= 12) {
        return fail(EINVAL);
    }
    if (name == ":tt") {
        return f[1] < 4 ? kConsoleIn : f[1] < 8 ? kConsoleOut : kConsoleErr;
    }
    if (!name.empty() && name[0] == ':') {
        return fail(ENOENT);  // e.g. ":semihosting-features": none offered
    }
    const std::string path = confined(name, kModes[f[1]]);
    if (path.empty()) {
        return fail(EACCES);
    }
    std::FILE* file = std::fopen(path.c_str(), kModes[f[1]]);
    if (file == nullptr) {
        return fail(errno);
    }
    m_files[m_next] = file;
    return m_next++;
}

std::string Semihost::confined(const std::string& name, const char* mode) {
    namespace fs = std::filesystem;
    const bool writes = mode[0] != 'r' || std::string(mode).find('+') != std::string::npos;
    const std::string& root = writes ? m_o.write_root : m_o.read_root;
    std::string why;
    std::error_code ec;
    if (root.empty()) {
        why = fmt::format("the firmware may not {} files{}", writes ? "write" : "read",
                          m_o.no_root_hint.empty() ? "" : " (" + m_o.no_root_hint + ")");
    } else if (name.empty() || sim::control_char_at(name) != std::string::npos) {
        why = "not a file name (empty, or with control characters)";
    } else {
        const fs::path base = fs::canonical(root, ec);
        const fs::path p = ec ? fs::path() : fs::weakly_canonical(base / name, ec);
        if (!ec && inside(p, base) && p != base) {
            return p.string();
        }
        why = ec ? fmt::format("{}: {}", root, ec.message())
                 : fmt::format("outside {}, the folder it may {}", base.string(),
                               writes ? "write into" : "read from");
    }
    const std::string line =
        fmt::format("semihosting: open(\"{}\", \"{}\") refused: {}", printable(name), mode, why);
    m_refused.push_back(line);
    if (m_o.refused) {
        m_o.refused(line);
    }
    return "";
}

uint64_t Semihost::write(const std::vector<uint64_t>& f, const GuestMemory& mem) {
    if (f[2] > kMaxTransfer) {
        return fail(EINVAL);
    }
    std::string buf(f[2], '\0');
    if (!mem.read(f[1], buf.data(), buf.size())) {
        return fail(EFAULT);
    }
    if (f[0] == kConsoleOut || f[0] == kConsoleErr) {
        m_o.console(buf);
        return 0;
    }
    auto it = m_files.find(f[0]);
    if (it == m_files.end()) {
        return fail(EBADF);
    }
    return buf.size() - std::fwrite(buf.data(), 1, buf.size(), it->second);  // bytes not written
}

uint64_t Semihost::read(const std::vector<uint64_t>& f, const GuestMemory& mem) {
    if (f[2] > kMaxTransfer) {
        return fail(EINVAL);
    }
    if (f[0] == kConsoleIn) {
        return f[2];  // no console input: nothing read
    }
    auto it = m_files.find(f[0]);
    if (it == m_files.end()) {
        return fail(EBADF);
    }
    std::vector<uint8_t> buf(f[2]);
    const size_t got = std::fread(buf.data(), 1, buf.size(), it->second);
    if (got > 0 && !mem.write(f[1], buf.data(), got)) {
        return fail(EFAULT);
    }
    return f[2] - got;  // bytes not read
}

uint64_t Semihost::exit(uint64_t reason, uint64_t subcode) {
    m_exited = true;
    if (reason == kApplicationExit) {
        m_exit_code = static_cast<int>(subcode & 0xff);
        m_exit_reason = fmt::format("exit({})", subcode);
    } else {  // picolibc: exit(n != 0) is ADP_Stopped_RunTimeErrorUnknown (0x20023), subcode n
        m_exit_code = subcode != 0 ? static_cast<int>(subcode & 0xff) : 1;
        m_exit_reason = fmt::format("stopped with reason {:#x}, subcode {}", reason, subcode);
    }
    return 0;
}

}  // namespace npu::rv64
