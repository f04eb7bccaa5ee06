#include "platforms/k210/soc/trace_player.h"

#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"

namespace npu::k210 {

namespace {
uint64_t number(const std::string& tok, const std::string& where) {
    std::string why;
    auto v = sim::parse_u64(tok, why);
    if (!v) {
        throw sim::Error(fmt::format("{}: '{}': {}", where, tok, why));
    }
    return *v;
}

// A script's lines as words, without comments; empty lines stay (as empty lists).
std::vector<std::vector<std::string>> words_of(const std::string& text) {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        out.emplace_back();
        for (std::string w; words >> w;) {
            out.back().push_back(w);
        }
    }
    return out;
}

// dump_mem's NAME: a plain file name, so that it lands in the output folder.
bool plain_name(const std::string& n) {
    if (n.empty() || n == "." || n == ".." || n.size() > 128) {
        return false;
    }
    for (char c : n) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-')) {
            return false;
        }
    }
    return n != "report.json" && n != "report.html" && n != "trace.json";
}

// The steps of a script's lines (words_of).
// A dump_mem step's length (1 byte to 64 MiB) and name (new, a plain file name).
void check_dump(const TraceStep& s, const std::string& where, std::set<std::string>& dump_names) {
    if (s.value == 0 || s.value > (64u << 20)) {
        throw sim::Error(fmt::format("{}: dump_mem LEN {}: expected 1 to 64 MiB", where, s.value));
    }
    if (!dump_names.insert(s.name).second) {
        throw sim::Error(fmt::format("{}: dump_mem NAME '{}': already the name of an earlier dump",
                                     where, s.name));
    }
    if (!plain_name(s.name)) {
        throw sim::Error(fmt::format(
            "{}: dump_mem NAME '{}': expected a plain file name (letters, digits, . _ -; "
            "not report.json, report.html or trace.json)",
            where, s.name));
    }
}

// One line's step (`t`: its words, `n`: its line number).
TraceStep parse_step(const std::vector<std::string>& t, int n, const std::string& where,
                     const Blobs& blobs, std::set<std::string>& dump_names) {
    auto want = [&](size_t count, const char* form) {
        if (t.size() != count) {
            throw sim::Error(fmt::format("{}: expected '{}'", where, form));
        }
    };
    auto blob = [&](const std::string& tok) {
        const std::string key = !tok.empty() && tok[0] == '@' ? tok.substr(1) : tok;
        if (key.empty() || blobs.count(key) == 0) {
            throw sim::Error(
                fmt::format("{}: '{}' is not a known blob (@name) or file", where, tok));
        }
        return key;
    };
    TraceStep s{TraceStep::WriteReg, n, 0, 0, 0, ""};
    if (t[0] == "load_mem" || t[0] == "compare_mem") {
        want(3, (t[0] + " ADDR BLOB").c_str());
        s.op = t[0] == "load_mem" ? TraceStep::LoadMem : TraceStep::CompareMem;
        s.addr = number(t[1], where);
        s.name = blob(t[2]);
    } else if (t[0] == "write_reg") {
        want(3, "write_reg ADDR VALUE");
        s.addr = number(t[1], where);
        s.value = number(t[2], where);
    } else if (t[0] == "read_reg") {
        want(4, "read_reg ADDR MASK EXPECT");
        s.op = TraceStep::ReadReg;
        s.addr = number(t[1], where);
        s.mask = number(t[2], where);
        s.value = number(t[3], where);
    } else if (t[0] == "wait_irq") {
        want(2, "wait_irq kpu|dma0..dma5");
        s.op = TraceStep::WaitIrq;
        s.name = t[1];
        if (s.name != "kpu" && !(s.name.size() == 4 && s.name.rfind("dma", 0) == 0 &&
                                 s.name[3] >= '0' && s.name[3] <= '5')) {
            throw sim::Error(fmt::format("{}: unknown interrupt '{}': expected kpu or dma0..dma5",
                                         where, s.name));
        }
    } else if (t[0] == "dump_mem") {
        want(4, "dump_mem ADDR LEN NAME");
        s.op = TraceStep::DumpMem;
        s.addr = number(t[1], where);
        s.value = number(t[2], where);
        s.name = t[3];
        check_dump(s, where, dump_names);
    } else {
        throw sim::Error(
            fmt::format("{}: unknown command '{}': expected load_mem, write_reg, read_reg, "
                        "wait_irq, compare_mem or dump_mem",
                        where, t[0]));
    }
    return s;
}

std::vector<TraceStep> parse_lines(const std::vector<std::vector<std::string>>& lines,
                                   const std::string& source, const Blobs& blobs) {
    std::vector<TraceStep> steps;
    std::set<std::string> dump_names;
    for (int n = 1; n <= static_cast<int>(lines.size()); ++n) {
        const std::vector<std::string>& t = lines[static_cast<size_t>(n - 1)];
        if (!t.empty()) {
            steps.push_back(parse_step(t, n, fmt::format("{}:{}", source, n), blobs, dump_names));
        }
    }
    return steps;
}

}  // namespace

std::vector<TraceStep> parse_trace(const std::string& text, const std::string& source,
                                   const Blobs& blobs) {
    return parse_lines(words_of(text), source, blobs);
}

TraceScript load_trace_script(const std::string& path) {
    const std::vector<uint8_t> bytes = sim::read_file(path);
    const std::string text(bytes.begin(), bytes.end());
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    TraceScript script;
    const std::vector<std::vector<std::string>> lines = words_of(text);
    for (size_t n = 0; n < lines.size(); ++n) {
        const std::vector<std::string>& t = lines[n];
        if (t.size() != 3 || (t[0] != "load_mem" && t[0] != "compare_mem") || t[2][0] == '@' ||
            script.blobs.count(t[2]) != 0) {
            continue;
        }
        const std::string file = (dir / t[2]).string();
        try {
            const bool npy = file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0;
            if (npy) {
                const sim::Tensor v = sim::read_npy(file);
                script.blobs[t[2]].assign(v.bytes(), v.bytes() + v.size_bytes());
            } else {
                script.blobs[t[2]] = sim::read_file(file);
            }
        } catch (const sim::Error& e) {
            throw sim::Error(fmt::format("{}:{}: {}", path, n + 1, e.what()));
        }
    }
    script.steps = parse_lines(lines, path, script.blobs);
    return script;
}

TracePlayer::TracePlayer(sc_core::sc_module_name name, K210Platform& platform,
                         std::vector<TraceStep> steps, Blobs blobs)
    : sc_module(name)
    , m_p(platform)
    , m_steps(std::move(steps))
    , m_blobs(std::move(blobs)) {
    SC_HAS_PROCESS(TracePlayer);
    SC_THREAD(run);
}

void TracePlayer::run() {
    for (m_at = 0; m_at < m_steps.size(); ++m_at) {
        const TraceStep& s = m_steps[m_at];
        if (!play(s)) {
            m_failures.push_back(fmt::format("line {}: bus error at {:#x}", s.line, s.addr));
        }
        m_qk.sync_if_needed();
    }
    m_qk.sync();
    m_finished = true;
}

// One step; false on a bus error. A failed check is recorded and the script goes on.
bool TracePlayer::play(const TraceStep& s) {
    auto fail = [&](const std::string& what) {
        m_failures.push_back(fmt::format("line {}: {}", s.line, what));
    };
    switch (s.op) {
    case TraceStep::LoadMem: {
        const std::vector<uint8_t>& b = m_blobs.at(s.name);
        return m_p.cpu.write(s.addr, b.data(), b.size(), m_qk.local()) == tlm::TLM_OK_RESPONSE;
    }
    case TraceStep::WriteReg:
        return m_p.cpu.write(s.addr, &s.value, 8, m_qk.local()) == tlm::TLM_OK_RESPONSE;
    case TraceStep::ReadReg: {
        uint64_t v = 0;
        const bool ok = m_p.cpu.read(s.addr, &v, 8, m_qk.local()) == tlm::TLM_OK_RESPONSE;
        if (ok && (v & s.mask) != s.value) {
            fail(fmt::format("read_reg {:#x}: got {:#x}, mask {:#x}, expected {:#x}", s.addr, v,
                             s.mask, s.value));
        }
        return ok;
    }
    case TraceStep::WaitIrq: {
        m_qk.sync();
        const sim::IrqLine& line =
            s.name == "kpu" ? m_p.kpu.irq : m_p.dmac.irq[static_cast<size_t>(s.name[3] - '0')];
        line.wait_high();
        return true;
    }
    case TraceStep::CompareMem: {
        const std::vector<uint8_t>& want = m_blobs.at(s.name);
        std::vector<uint8_t> got(want.size());
        const bool ok =
            m_p.cpu.read(s.addr, got.data(), got.size(), m_qk.local()) == tlm::TLM_OK_RESPONSE;
        if (ok && got != want) {
            size_t i = 0;
            while (got[i] == want[i]) {
                ++i;
            }
            fail(
                fmt::format("compare_mem {:#x} @{}: first difference at byte {} ({:#x}): got "
                            "{:#04x}, expected {:#04x}",
                            s.addr, s.name, i, s.addr + i, got[i], want[i]));
        }
        return ok;
    }
    case TraceStep::DumpMem: {
        std::vector<uint8_t> got(s.value);
        const bool ok =
            m_p.cpu.read(s.addr, got.data(), got.size(), m_qk.local()) == tlm::TLM_OK_RESPONSE;
        if (ok) {
            m_dumps[s.name] = std::move(got);
        }
        return ok;
    }
    }
    return true;
}

}  // namespace npu::k210
