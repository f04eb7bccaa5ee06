#include "models/k210_dvp/dvp.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/k210_dvp/dvp_pixels.h"

namespace npu::dvp {

using sc_core::sc_time;
using sim::Access;

namespace {
// dvp.h's bits.
constexpr uint64_t kStartInt = 0x1, kFinishInt = 0x2, kAiOut = 0x4, kDisplayOut = 0x8;
constexpr uint64_t kAuto = 0x10, kBurst = 0x100;
constexpr uint64_t kClkEnable = 0x100, kReset = 0x10000, kPowerDown = 0x1000000;
constexpr uint64_t kFrameStart = 0x1, kFrameFinish = 0x100, kDvpEn = 0x10000, kSccbEn = 0x1000000;
constexpr uint64_t kFull32 = 0xffffffff;

Format format_of(uint64_t cfg) {
    const uint64_t f = (cfg >> 9) & 0x3;
    return f == 1 ? Format::kYuv422 : f == 3 ? Format::kY : Format::kRgb565;
}
}  // namespace

Dvp::Dvp(sc_core::sc_module_name name, const sim::BusConfig& bus, double apb1_hz,
         sc_time access_latency)
    : sc_module(name)
    , regs("regs", "dvp", kBytes, access_latency)
    , axi("axi", bus)
    , irq("irq")
    , m_apb1_hz(apb1_hz)
    , m_stats(basename())
    , m_captured(m_stats.counter("frames_captured", "frames", "camera frames written to memory"))
    , m_skipped(m_stats.counter("frames_skipped", "frames",
                                "camera frames that found DVP_EN clear at their first line"))
    , m_sccb(m_stats.counter("sccb_transactions", "transactions", "SCCB reads and writes")) {
    add_registers();
    SC_THREAD(run);
}

void Dvp::attach(Camera* camera) {
    m_sensor = camera;
    m_changed.notify(sc_core::SC_ZERO_TIME);
}

void Dvp::set_apb1_hz(double hz) {
    m_apb1_hz = hz;
    m_changed.notify(sc_core::SC_ZERO_TIME);
}

void Dvp::add_registers() {
    regs.add({"dvp_cfg", 0x00, 4, 0, Access::RW, kFull32, true}).on_write([this](uint64_t v) {
        m_cfg = v;
        update_irq();
    });
    uint64_t* addr[] = {&m_r, &m_g, &m_b};
    const char* names[] = {"r_addr", "g_addr", "b_addr"};
    for (unsigned i = 0; i < 3; ++i) {
        regs.add({names[i], 0x04 + 4u * i, 4, 0, Access::RW, kFull32, true})
            .on_write([p = addr[i]](uint64_t v) { *p = v; });
    }
    regs.add({"cmos_cfg", 0x10, 4, 0, Access::RW, kFull32, true}).on_write([this](uint64_t v) {
        const uint64_t before = m_cmos;
        m_cmos = v;
        cmos_written(before, v);
    });
    sim::Register& sccb_cfg = regs.add({"sccb_cfg", 0x14, 4, 0, Access::RW, kFull32, true});
    sccb_cfg.on_write([this](uint64_t v) {
        m_sccb_cfg = (m_sccb_cfg & ~uint64_t{0x00ffffff}) | (v & 0x00ffffff);
    });
    sccb_cfg.on_read_pure([this](uint64_t) { return m_sccb_cfg; });  // [31:24]: the read byte
    regs.add({"sccb_ctl", 0x18, 4, 0, Access::RW, kFull32, true}).on_write([this](uint64_t v) {
        m_sccb_ctl = v;
    });
    regs.add({"axi", 0x1c, 4, 0, Access::RW, kFull32, true});
    sim::Register& sts = regs.add({"sts", 0x20, 4, 0, Access::RW, kFull32, true});
    sts.on_write([this](uint64_t v) { write_sts(v); });
    sts.on_read_pure(
        [this](uint64_t) { return (m_sts & ~kSccbEn) | (now() < m_sccb_done ? kSccbEn : 0); });
    regs.add({"reverse", 0x24, 4, 0, Access::RW, kFull32, true});
    regs.add({"rgb_addr", 0x28, 4, 0, Access::RW, kFull32, true}).on_write([this](uint64_t v) {
        m_rgb = v;
    });
}

// Each flag is written only where its write-enable bit (the next bit up) is set: FRAME_START and
// FRAME_FINISH clear on a 1, DVP_EN takes the bit, SCCB_EN starts a transaction.
void Dvp::write_sts(uint64_t v) {
    for (const uint64_t flag : {kFrameStart, kFrameFinish}) {
        if ((v & (flag << 1)) != 0 && (v & flag) != 0) {
            m_sts &= ~flag;
        }
    }
    if ((v & (kDvpEn << 1)) != 0) {
        m_sts = (m_sts & ~kDvpEn) | (v & kDvpEn);
    }
    if ((v & (kSccbEn << 1)) != 0 && (v & kSccbEn) != 0 && now() >= m_sccb_done) {
        sccb_transfer();
    }
    update_irq();
}

void Dvp::cmos_written(uint64_t before, uint64_t after) {
    if (m_sensor != nullptr && (before & kReset) != 0 && (after & kReset) == 0) {
        m_sensor->reset_pin();  // RESETB pulled low
    }
    m_changed.notify(sc_core::SC_ZERO_TIME);
}

double Dvp::xclk_hz() const {
    if ((m_cmos & kClkEnable) == 0) {
        return 0;
    }
    return m_apb1_hz / (static_cast<double>((m_cmos & 0xff) + 1) * 2.0);
}

bool Dvp::sensor_ready() const {
    return m_sensor != nullptr && xclk_hz() > 0 && (m_cmos & kReset) != 0 &&
           (m_cmos & kPowerDown) == 0;
}

// SCCB_CTL: bit 0 set, a write of SCCB_CFG.BYTE_NUM + 1 bytes (the device address, then CTL's
// bytes 1-3); clear, a read of one byte from the device. Each byte is 9 SCL periods, plus start
// and stop.
void Dvp::sccb_transfer() {
    ++m_sccb;
    const auto device = static_cast<uint8_t>(m_sccb_ctl & 0xfe);
    const bool write = (m_sccb_ctl & 1) != 0;
    const unsigned total = write ? static_cast<unsigned>(m_sccb_cfg & 0x3) + 1 : 2;
    const bool answers = sensor_ready() && device == m_sensor->sccb_address();
    uint8_t rdata = 0xff;
    if (write && answers) {
        std::vector<uint8_t> bytes;
        for (unsigned i = 1; i < total; ++i) {
            bytes.push_back(static_cast<uint8_t>(m_sccb_ctl >> (8 * i)));
        }
        m_sensor->sccb_write(bytes);
        m_changed.notify(sc_core::SC_ZERO_TIME);  // the stream may have started or changed
    } else if (answers) {
        rdata = m_sensor->sccb_read();
    }
    if (!answers) {
        warn(fmt::format(
            "an SCCB transaction to device 0x{:02x} got no answer ({}); reads give 0xff", device,
            m_sensor == nullptr ? "no camera sensor is configured"
            : device != m_sensor->sccb_address()
                ? fmt::format("the {} answers at 0x{:02x}", m_sensor->name(),
                              m_sensor->sccb_address())
                : "the sensor has no XCLK, or is held in reset or power-down"));
    }
    if (!write) {
        m_sccb_cfg = (m_sccb_cfg & 0x00ffffff) | (uint64_t{rdata} << 24);
    }
    const uint64_t scl = ((m_sccb_cfg >> 8) & 0xff) + ((m_sccb_cfg >> 16) & 0xff);
    const double period =
        m_apb1_hz > 0 ? static_cast<double>(std::max<uint64_t>(scl, 2)) / m_apb1_hz : 1e-6;
    m_sccb_done = now() + sc_time((9.0 * total + 2.0) * period, sc_core::SC_SEC);
    m_status.notify(m_sccb_done - sc_core::sc_time_stamp());
}

void Dvp::update_irq() {
    irq.set(((m_sts & kFrameStart) != 0 && (m_cfg & kStartInt) != 0) ||
            ((m_sts & kFrameFinish) != 0 && (m_cfg & kFinishInt) != 0));
}

void Dvp::warn(const std::string& text) {
    if (std::find(m_warnings.begin(), m_warnings.end(), text) == m_warnings.end()) {
        m_warnings.push_back(text);
    }
}

void Dvp::run() {
    size_t scene_index = 0;
    for (;;) {
        if (!sensor_ready()) {
            wait(m_changed);
            continue;
        }
        m_stream = m_sensor->stream(xclk_hz());
        const SensorStream& s = m_stream;
        if (!s.on || s.frame_s <= 0) {
            wait(m_changed);
            continue;
        }
        m_timing = s.timing;
        const sc_time t0 = sc_core::sc_time_stamp();
        const sc_time frame(s.frame_s, sc_core::SC_SEC);
        m_sts |= kFrameStart;  // VSYNC
        update_irq();
        m_status.notify(sc_core::SC_ZERO_TIME);
        FrameRecord rec{t0, t0 + frame, false, scene_index};
        wait(sc_time(s.first_line_s, sc_core::SC_SEC));
        if ((m_sts & kDvpEn) != 0 || (m_cfg & kAuto) != 0) {
            rec.captured = capture_frame(t0, scene_index);
            rec.end = sc_core::sc_time_stamp();
            scene_index += rec.captured ? 1 : 0;
            m_captured += rec.captured ? 1 : 0;
        } else {
            ++m_skipped;
        }
        m_frames.push_back(rec);
        const sc_time next = t0 + frame;
        if (next > sc_core::sc_time_stamp()) {
            wait(next - sc_core::sc_time_stamp());
        }
    }
}

// The frame's lines at the sensor's line times, then FRAME_FINISH.
bool Dvp::capture_frame(const sc_time& t0, size_t index) {
    const SensorStream& s = m_stream;
    m_frame_bytes = m_sensor->frame(index, s);
    const std::vector<uint8_t>& bytes = m_frame_bytes;
    if (bytes.size() < 2 * size_t{s.width} * s.height) {
        warn(fmt::format("the {} sent {} bytes for a {}x{} frame", m_sensor->name(), bytes.size(),
                         s.width, s.height));
        return false;
    }
    const uint64_t bursts = (m_cfg >> 12) & 0xff;
    const auto width = static_cast<unsigned>(bursts * 8 * ((m_cfg & kBurst) != 0 ? 4 : 1));
    const auto lines = static_cast<unsigned>((m_cfg >> 20) & 0x3ff);
    if (width != s.width || lines != s.height) {
        warn(
            fmt::format("the DVP is set for {}x{} (dvp_set_image_size) and the {} sends {}x{}: "
                        "{}x{} is written",
                        width, lines, m_sensor->name(), s.width, s.height, std::min(width, s.width),
                        std::min(lines, s.height)));
    }
    const unsigned w = std::min(width, s.width), h = std::min(lines, s.height);
    for (unsigned y = 0; y < h; ++y) {
        const sc_time at = t0 + sc_time(s.first_line_s + (y + 1) * s.line_s, sc_core::SC_SEC);
        if (at > sc_core::sc_time_stamp()) {
            wait(at - sc_core::sc_time_stamp());
        }
        write_line(bytes.data() + 2 * size_t{y} * s.width, y, w);
    }
    m_sts |= kFrameFinish;
    if ((m_cfg & kAuto) == 0) {
        m_sts &= ~kDvpEn;
    }
    update_irq();
    m_status.notify(sc_core::SC_ZERO_TIME);
    return true;
}

void Dvp::write_line(const uint8_t* line, unsigned y, unsigned width) {
    std::vector<uint8_t> display(2 * size_t{width}), planes(3 * size_t{width});
    const bool ai = (m_cfg & kAiOut) != 0, show = (m_cfg & kDisplayOut) != 0;
    uint8_t* r = planes.data();
    convert_line(format_of(m_cfg), line, width, show ? display.data() : nullptr, ai ? r : nullptr,
                 r + width, r + 2 * size_t{width});
    sc_time local = sc_core::SC_ZERO_TIME;
    const auto put = [&](uint64_t base, const uint8_t* src, size_t n, size_t row_bytes) {
        const uint64_t a = base + size_t{y} * row_bytes;
        if (axi.write(a, src, n, local) != tlm::TLM_OK_RESPONSE) {
            warn(fmt::format("the DVP's write to 0x{:08x} failed: not memory", a));
        }
    };
    if (show) {
        put(m_rgb, display.data(), display.size(), display.size());
    }
    if (ai) {
        put(m_r, r, width, width);
        put(m_g, r + width, width, width);
        put(m_b, r + 2 * size_t{width}, width, width);
    }
}

}  // namespace npu::dvp
