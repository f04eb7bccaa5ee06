// The GDB remote-protocol server on a pretend target: framing and checksums as GDB's "Remote
// Protocol" appendix defines them (worked by hand: "$g#67", 'g' = 0x67), acks and no-ack mode,
// registers little-endian, memory, breakpoints, resume actions, ^C, the target description,
// and random bytes that never crash it.
#include <cstdio>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "models/rv64/gdb_rsp.h"
#include "tests/fuzz/fuzz_gdb_targets.h"

namespace npu::rv64 {
namespace {

std::string hex(size_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%zx", v);
    return b;
}

struct Pretend {
    std::map<unsigned, uint64_t> regs;
    std::vector<uint8_t> mem = std::vector<uint8_t>(256);
    std::vector<uint64_t> added, removed;
    GdbTarget target() {
        GdbTarget t;
        t.reg = [this](unsigned n) {
            return regs[n];
        };
        t.set_reg = [this](unsigned n, uint64_t v) {
            regs[n] = v;
        };
        t.read_mem = [this](uint64_t a, uint8_t* d, size_t n) {
            if (a < 0x1000 || a - 0x1000 + n > mem.size()) {
                return false;
            }
            std::copy_n(mem.begin() + static_cast<long>(a - 0x1000), n, d);
            return true;
        };
        t.write_mem = [this](uint64_t a, const uint8_t* s, size_t n) {
            if (a < 0x1000 || a - 0x1000 + n > mem.size()) {
                return false;
            }
            std::copy_n(s, n, mem.begin() + static_cast<long>(a - 0x1000));
            return true;
        };
        t.add_breakpoint = [this](uint64_t a) {
            added.push_back(a);
        };
        t.remove_breakpoint = [this](uint64_t a) {
            removed.push_back(a);
        };
        return t;
    }
};

TEST(GdbRsp, FramesAckAndAnswer) {
    EXPECT_EQ(rsp_frame("g"), "$g#67");
    EXPECT_EQ(rsp_frame(""), "$#00");
    Pretend p;
    p.regs[1] = 0x1122334455667788;
    p.regs[32] = 0x80000000;
    GdbServer s(p.target());
    GdbAction a;
    std::string out = s.feed("+$g#67", a);
    ASSERT_EQ(out.substr(0, 2), "+$");
    const std::string regs = out.substr(2, out.find('#') - 2);
    EXPECT_EQ(regs.size(), 33u * 16);
    EXPECT_EQ(regs.substr(16, 16), "8877665544332211");               // x1, little-endian
    EXPECT_EQ(regs.substr(32 * 16, 16), "0000008000000000");          // pc
    EXPECT_EQ(s.feed("$g#00", a), "-");                               // a wrong checksum: resend
    EXPECT_EQ(s.feed("$p20#", a), "");                                // incomplete: waits
    EXPECT_EQ(s.feed("d2", a), "+" + rsp_frame("0000008000000000"));  // "p20" sums to 0xd2
    EXPECT_EQ(s.feed(rsp_frame("P1=0100000000000000"), a), "+" + rsp_frame("OK"));
    EXPECT_EQ(p.regs[1], 1u);
    EXPECT_EQ(s.feed(rsp_frame("p44"), a), "+" + rsp_frame("E01"));  // no register 68
    EXPECT_EQ(s.feed(rsp_frame("QStartNoAckMode"), a), "+" + rsp_frame("OK"));
    EXPECT_EQ(s.feed(rsp_frame("?"), a), rsp_frame("S05"));  // no acks from now on
}

TEST(GdbRsp, MemoryBreakpointsAndResuming) {
    Pretend p;
    GdbServer s(p.target());
    GdbAction a;
    s.feed(rsp_frame("QStartNoAckMode"), a);
    EXPECT_EQ(s.feed(rsp_frame("M1004,3:0a0b0c"), a), rsp_frame("OK"));
    EXPECT_EQ(s.feed(rsp_frame("m1003,5"), a), rsp_frame("000a0b0c00"));
    EXPECT_EQ(s.feed(rsp_frame("m10,4"), a), rsp_frame("E14"));         // nothing there
    EXPECT_EQ(s.feed(rsp_frame("M1004,3:0a0b"), a), rsp_frame("E01"));  // length mismatch
    EXPECT_EQ(s.feed(rsp_frame("mzz"), a), rsp_frame("E01"));
    EXPECT_EQ(s.feed(rsp_frame("Z0,80000542,2"), a), rsp_frame("OK"));
    EXPECT_EQ(s.feed(rsp_frame("z1,80000542,2"), a), rsp_frame("OK"));
    EXPECT_EQ(s.feed(rsp_frame("Z2,1000,4"), a), rsp_frame(""));  // watchpoints: unsupported
    EXPECT_EQ(p.added, std::vector<uint64_t>{0x80000542});
    EXPECT_EQ(p.removed, std::vector<uint64_t>{0x80000542});
    EXPECT_EQ(s.feed(rsp_frame("c"), a), "");
    EXPECT_EQ(a, GdbAction::Continue);
    s.feed(rsp_frame("vCont;s:1"), a);
    EXPECT_EQ(a, GdbAction::Step);
    s.feed("\x03", a);
    EXPECT_TRUE(s.interrupted());
    EXPECT_EQ(s.stop_reply(kSigInt), "$S02#b5");
    EXPECT_EQ(s.exit_reply(3), rsp_frame("W03"));
    EXPECT_EQ(s.feed(rsp_frame("k"), a), rsp_frame("OK"));
    EXPECT_EQ(a, GdbAction::Kill);
}

TEST(GdbRsp, TheTargetDescriptionComesInPieces) {
    Pretend p;
    GdbServer s(p.target());
    GdbAction a;
    s.feed(rsp_frame("QStartNoAckMode"), a);
    std::string xml;
    for (size_t off = 0; off < 100000; off += 100) {
        const std::string q =
            "qXfer:features:read:target.xml:" + hex(off) + ",64";  // 100 bytes a piece
        const std::string r = s.feed(rsp_frame(q), a);
        const std::string body = r.substr(1, r.find('#') - 1);
        xml += body.substr(1);
        if (body[0] == 'l') {
            break;
        }
    }
    EXPECT_NE(xml.find("<architecture>riscv:rv64</architecture>"), std::string::npos);
    EXPECT_NE(xml.find("org.gnu.gdb.riscv.fpu"), std::string::npos);
    EXPECT_NE(xml.find("name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"67\""),
              std::string::npos);
    EXPECT_EQ(xml.substr(xml.size() - 9), "</target>");
}

TEST(GdbRsp, RandomBytesNeverCrashTheServer) {
    Pretend p;
    GdbServer s(p.target());
    std::mt19937 rng(7);
    for (int i = 0; i < 20000; ++i) {
        std::string junk(static_cast<size_t>(rng() % 40), '\0');
        for (char& c : junk) {
            const char pick[] = "$#+-mMgGpPzZcsvqQ?k0123456789abcdef,:;=";
            c = rng() % 4 == 0 ? static_cast<char>(rng()) : pick[rng() % (sizeof pick - 1)];
        }
        GdbAction a;
        s.feed(junk, a);
        s.feed(rsp_frame(junk), a);
    }
    SUCCEED();
}

// What a hostile client tried (issue #33): register numbers past 32 bits (p100000021 read
// register 0x21), numbers over 64 bits, breakpoints inside an instruction or without end,
// a packet without '#' growing the input for ever.
TEST(GdbRsp, HostileClientsAreBounded) {
    Pretend p;
    GdbTarget t = p.target();
    t.instruction_at = [](uint64_t a) {
        return a % 4 == 0;  // pretend: 32-bit instructions only
    };
    GdbServer s(t);
    GdbAction a;
    s.feed(rsp_frame("QStartNoAckMode"), a);
    p.regs[0x21] = 7;
    EXPECT_EQ(s.feed(rsp_frame("p100000021"), a), rsp_frame("E01"));
    EXPECT_EQ(s.feed(rsp_frame("p21"), a), rsp_frame("0700000000000000"));
    EXPECT_EQ(s.feed(rsp_frame("P100000001=0100000000000000"), a), rsp_frame("E01"));
    EXPECT_EQ(s.feed(rsp_frame("P1=01"), a), rsp_frame("E01"));  // not the register's size
    EXPECT_EQ(s.feed(rsp_frame("m11000000000000000,4"), a), rsp_frame("E01"));  // 68 bits
    EXPECT_EQ(s.feed(rsp_frame("m1000,0"), a), rsp_frame(""));           // nothing: no null buffer
    EXPECT_EQ(s.feed(rsp_frame("M1000,0:"), a), rsp_frame("OK"));        // (UBSan, by the fuzzer)
    EXPECT_EQ(s.feed(rsp_frame("Z0,80000002,2"), a), rsp_frame("E01"));  // inside an instruction
    for (uint64_t i = 0; i < kGdbMaxBreakpoints; ++i) {
        ASSERT_EQ(s.feed(rsp_frame("Z0," + hex(0x80000000 + 4 * i) + ",4"), a), rsp_frame("OK"));
    }
    EXPECT_EQ(s.feed(rsp_frame("Z0,90000000,4"), a), rsp_frame("E01"));  // one too many
    EXPECT_EQ(s.feed(rsp_frame("Z0,80000000,4"), a), rsp_frame("OK"));   // already there
    EXPECT_EQ(s.feed(rsp_frame("z0,80000000,4"), a), rsp_frame("OK"));
    EXPECT_EQ(s.feed(rsp_frame("Z0,90000000,4"), a), rsp_frame("OK"));  // room again
    EXPECT_EQ(p.added.size(), kGdbMaxBreakpoints + 1);
    EXPECT_EQ(p.removed, std::vector<uint64_t>{0x80000000});
    // 64 MB after a '$' and no '#': dropped once past PacketSize, never held.
    const std::string mb(1 << 20, 'a');
    std::string replies;
    replies += s.feed("$", a);
    for (int i = 0; i < 64; ++i) {
        replies += s.feed(mb, a);
        ASSERT_LE(s.buffered(), kGdbMaxPacket + 1);
    }
    EXPECT_EQ(replies, "-");
    EXPECT_EQ(s.feed(rsp_frame("p21"), a), rsp_frame("0700000000000000"));  // in step again
    EXPECT_NE(s.feed(rsp_frame("qSupported"), a).find("PacketSize=8000"), std::string::npos);
}

// Seeded mutations of a debugging session, through both fuzz entry points (the libFuzzer targets
// explore further): the packet layer and a running hart.
TEST(GdbRsp, MutatedSessionsNeverCrashTheServerOrTheHart) {
    std::string seed;
    for (const char* pk : {"qSupported", "?", "g", "p20", "Z0,80000002,2", "Z0,80000004,4", "c",
                           "s", "m80000000,10", "M80000100,2:0102", "z0,80000002,2",
                           "Z0,80000001,2", "c", "vCont;s:1", "P20=0200008000000000", "c"}) {
        const std::string f = rsp_frame(pk);
        seed += static_cast<char>(f.size() - 1);
        seed += f;
    }
    std::mt19937 rng(33);
    for (int i = 0; i < 400; ++i) {
        std::string in = seed;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 6); ++k) {
            in[rng() % in.size()] = static_cast<char>(rng());
        }
        const auto* d = reinterpret_cast<const uint8_t*>(in.data());
        fuzz::gdb_packets(d, in.size());
        fuzz::gdb_session(d, in.size());
    }
    SUCCEED();
}

}  // namespace
}  // namespace npu::rv64
