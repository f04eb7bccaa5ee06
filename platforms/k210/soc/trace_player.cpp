#include "platforms/k210/soc/trace_player.h"

#include <sstream>

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

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
}  // namespace

std::vector<TraceStep> parse_trace(const std::string& text, const std::string& source,
                                   const std::map<std::string, std::vector<uint8_t>>& blobs) {
    std::vector<TraceStep> steps;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::vector<std::string> t;
        for (std::string w; words >> w;) {
            t.push_back(w);
        }
        if (t.empty()) {
            continue;
        }
        const std::string where = fmt::format("{}:{}", source, n);
        auto want = [&](size_t count, const char* form) {
            if (t.size() != count) {
                throw sim::Error(fmt::format("{}: expected '{}'", where, form));
            }
        };
        auto blob = [&](const std::string& tok) {
            if (tok.size() < 2 || tok[0] != '@' || blobs.count(tok.substr(1)) == 0) {
                throw sim::Error(fmt::format("{}: '{}' is not a known blob (@name)", where, tok));
            }
            return tok.substr(1);
        };
        TraceStep s{TraceStep::WriteReg, n, 0, 0, 0, ""};
        if (t[0] == "load_mem" || t[0] == "compare_mem") {
            want(3, (t[0] + " ADDR @blob").c_str());
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
                throw sim::Error(fmt::format(
                    "{}: unknown interrupt '{}': expected kpu or dma0..dma5", where, s.name));
            }
        } else {
            throw sim::Error(
                fmt::format("{}: unknown command '{}': expected load_mem, write_reg, read_reg, "
                            "wait_irq or compare_mem",
                            where, t[0]));
        }
        steps.push_back(s);
    }
    return steps;
}

TracePlayer::TracePlayer(sc_core::sc_module_name name, K210Platform& platform,
                         std::vector<TraceStep> steps,
                         std::map<std::string, std::vector<uint8_t>> blobs)
    : sc_module(name)
    , m_p(platform)
    , m_steps(std::move(steps))
    , m_blobs(std::move(blobs)) {
    SC_HAS_PROCESS(TracePlayer);
    SC_THREAD(run);
}

void TracePlayer::run() {
    auto fail = [&](const TraceStep& s, const std::string& what) {
        m_failures.push_back(fmt::format("line {}: {}", s.line, what));
    };
    for (const TraceStep& s : m_steps) {
        bool ok = true;
        switch (s.op) {
        case TraceStep::LoadMem: {
            const std::vector<uint8_t>& b = m_blobs.at(s.name);
            ok = m_p.cpu.write(s.addr, b.data(), b.size(), m_qk.local()) == tlm::TLM_OK_RESPONSE;
            break;
        }
        case TraceStep::WriteReg:
            ok = m_p.cpu.write(s.addr, &s.value, 8, m_qk.local()) == tlm::TLM_OK_RESPONSE;
            break;
        case TraceStep::ReadReg: {
            uint64_t v = 0;
            ok = m_p.cpu.read(s.addr, &v, 8, m_qk.local()) == tlm::TLM_OK_RESPONSE;
            if (ok && (v & s.mask) != s.value) {
                fail(s, fmt::format("read_reg {:#x}: got {:#x}, mask {:#x}, expected {:#x}", s.addr,
                                    v, s.mask, s.value));
            }
            break;
        }
        case TraceStep::WaitIrq: {
            m_qk.sync();
            const sim::IrqLine& line =
                s.name == "kpu" ? m_p.kpu.irq : m_p.dmac.irq[static_cast<size_t>(s.name[3] - '0')];
            line.wait_high();
            break;
        }
        case TraceStep::CompareMem: {
            const std::vector<uint8_t>& want = m_blobs.at(s.name);
            std::vector<uint8_t> got(want.size());
            ok = m_p.cpu.read(s.addr, got.data(), got.size(), m_qk.local()) == tlm::TLM_OK_RESPONSE;
            if (ok && got != want) {
                size_t i = 0;
                while (got[i] == want[i]) {
                    ++i;
                }
                fail(s,
                     fmt::format(
                         "compare_mem {:#x} @{}: first difference at byte {} ({:#x}): got {:#04x}, "
                         "expected {:#04x}",
                         s.addr, s.name, i, s.addr + i, got[i], want[i]));
            }
            break;
        }
        }
        if (!ok) {
            fail(s, fmt::format("bus error at {:#x}", s.addr));
        }
        m_qk.sync_if_needed();
    }
    m_qk.sync();
    m_finished = true;
}

}  // namespace npu::k210
