// The K210's DVP (0x50430000; the SDK's dvp.h/dvp.c) with the camera sensor on its pins and SCCB
// bus: registers as dvp.c drives them, the SCCB master inside it (a transaction started by
// STS.SCCB_EN, busy for its bits at SCL = APB1 / (LCNT + HCNT), the read byte in SCCB_CFG[31:24];
// an absent, unclocked or held-in-reset sensor answers 0xFF), XCLK = APB1 / ((CLK_DIV + 1) * 2)
// out to the sensor, and frames: at each VSYNC of the streaming sensor STS.FRAME_START rises; a
// frame whose first line finds STS.DVP_EN set (dvp_start_convert, or CFG.AUTO) is written line by
// line at the sensor's line times — the display buffer (RGB565) and the three AI planes
// (dvp_pixels.h) through the DVP's own AXI master — and STS.FRAME_FINISH rises after its last
// line, clearing DVP_EN unless AUTO. STS's flags are written only where their *_WE bit is set (a
// 1 clears FRAME_START/FINISH); the interrupt (PLIC 24) is FRAME_START & CFG.START_INT_ENABLE |
// FRAME_FINISH & CFG.FINISH_INT_ENABLE. docs/k210_camera.md.
#pragma once

#include <string>
#include <vector>

#include <systemc>

#include "sim/core/stats.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"

namespace npu::dvp {

// What the sensor streams, and when (models/camera's sensors give it).
struct SensorStream {
    bool on = false;  // clocked, configured, out of standby
    unsigned width = 0, height = 0;
    double frame_s = 0, first_line_s = 0, line_s = 0;  // VSYNC to VSYNC, to the first line, between
    std::string timing;                                // the formula with its numbers
};

// What the DVP's pins and SCCB bus reach: the board plugs a sensor with its scene in.
class Camera {
public:
    virtual ~Camera() = default;
    virtual std::string name() const = 0;
    virtual uint8_t sccb_address() const = 0;  // its 8-bit write address
    // An SCCB write's bytes after the device address; a read of the register last addressed.
    virtual void sccb_write(const std::vector<uint8_t>& bytes) = 0;
    virtual uint8_t sccb_read() = 0;
    virtual void reset_pin() = 0;  // RESETB pulled low: its registers to their power-on values
    virtual SensorStream stream(double xclk_hz) = 0;
    // The bytes (2 per pixel, as sent) of the frame the DVP captures; `index`: the frames it
    // captured before.
    virtual std::vector<uint8_t> frame(size_t index, const SensorStream& s) = 0;
};

class Dvp : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x30;

    Dvp(sc_core::sc_module_name name, const sim::BusConfig& bus, double apb1_hz,
        sc_core::sc_time access_latency);

    sim::Peripheral regs;
    sim::AxiPort axi;  // writes the buffers; the platform binds it to memory
    sim::IrqLine irq;

    // The camera on the pins and SCCB (null: nothing answers).
    void attach(Camera* camera);
    void set_apb1_hz(double hz);
    // Notified when STS may have changed (an SCCB transaction ends, a frame starts or finishes):
    // what a hart polling STS waits for.
    const sc_core::sc_event& status_event() const { return m_status; }

    struct FrameRecord {
        sc_core::sc_time start,
            end;  // VSYNC, and the last line written (captured) or VSYNC + frame
        bool captured = false;
        size_t scene = 0;  // the scene's frame index
    };
    const std::vector<FrameRecord>& frames() const { return m_frames; }
    const std::vector<std::string>& warnings() const { return m_warnings; }
    std::string timing() const { return m_timing; }  // the sensor's frame-time formula, last used
    sim::StatGroup& stats() { return m_stats; }

private:
    void add_registers();
    void write_sts(uint64_t v);
    void cmos_written(uint64_t before, uint64_t after);
    void sccb_transfer();
    void update_irq();
    double xclk_hz() const;
    bool sensor_ready() const;  // clocked, out of reset and power-down
    void run();                 // SC_THREAD: the sensor's frames
    bool capture_frame(const sc_core::sc_time& t0, size_t index);      // of m_stream
    void write_line(const uint8_t* line, unsigned y, unsigned width);  // 2 * width stream bytes
    void warn(const std::string& text);
    sc_core::sc_time now() const { return regs.access_time(); }
    SC_HAS_PROCESS(Dvp);

    Camera* m_sensor = nullptr;
    double m_apb1_hz;
    uint64_t m_cfg = 0, m_sts = 0, m_cmos = 0, m_sccb_cfg = 0, m_sccb_ctl = 0;
    uint64_t m_r = 0, m_g = 0, m_b = 0, m_rgb = 0;
    sc_core::sc_time m_sccb_done;
    sc_core::sc_event m_status, m_changed;
    std::vector<FrameRecord> m_frames;
    std::vector<std::string> m_warnings;
    std::string m_timing;
    // What a frame in flight holds, kept here and not in run()'s locals: a thread stopped in a
    // wait() at the simulation's end never destroys its locals (docs/testing.md, sanitizers).
    SensorStream m_stream;
    std::vector<uint8_t> m_frame_bytes;
    sim::StatGroup m_stats;
    sim::Counter& m_captured;
    sim::Counter& m_skipped;
    sim::Counter& m_sccb;
};

}  // namespace npu::dvp
