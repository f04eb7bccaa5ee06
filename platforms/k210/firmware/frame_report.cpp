#include "platforms/k210/firmware/frame_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/image.h"
#include "sim/tlm/sim_time.h"

namespace npu::k210 {

namespace {

using sc_core::sc_time;

// An LCD frame as a PNG: RGB565 widened to 8 bits per channel (v << 3 | v >> 2 for red and blue,
// v << 2 | v >> 4 for green), as the panel's 16-bit colours are usually shown.
std::vector<uint8_t> frame_png(const lcd::Frame& f) {
    const size_t n = f.rgb565.size();
    std::vector<uint8_t> planes(3 * n);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t v = f.rgb565[i];
        const auto r = static_cast<uint8_t>(v >> 11), g = static_cast<uint8_t>((v >> 5) & 0x3f),
                   b = static_cast<uint8_t>(v & 0x1f);
        planes[i] = static_cast<uint8_t>(r << 3 | r >> 2);
        planes[n + i] = static_cast<uint8_t>(g << 2 | g >> 4);
        planes[2 * n + i] = static_cast<uint8_t>(b << 3 | b >> 2);
    }
    return sim::encode_png(planes.data(), 3, f.height, f.width);
}

// The LCD's frames (each finished one, then the one on the screen at the end) as lcd/NNNN.png,
// their times in lcd/frames.txt ("<index> <time us> <width>x<height> <on|off>": when the last
// pixel of the frame was written, whether the display was on and awake).
void add_lcd_frames(const FirmwareSoc& soc, platform::RunReport& rep,
                    nlohmann::ordered_json& files) {
    std::vector<FirmwareSoc::LcdShot> shots = soc.lcd_frames();
    if (const auto last = soc.lcd_last(); last && !soc.frames_done()) {
        shots.push_back(*last);  // (after --max-frames the next frame has only just begun)
    }
    if (shots.empty()) {
        return;
    }
    std::string list;
    for (const FirmwareSoc::LcdShot& s : shots) {
        if (!s.frame.rgb565.empty()) {  // --lcd-every
            rep.files.push_back({fmt::format("lcd/{:04d}.png", s.frame.index), frame_png(s.frame)});
        }
        list += fmt::format("{} {:.3f} {}x{} {}\n", s.frame.index, s.at.to_seconds() * 1e6,
                            s.frame.width, s.frame.height, s.frame.displayed ? "on" : "off");
    }
    rep.files.push_back({"lcd/frames.txt", {list.begin(), list.end()}});
    files["lcd"] = "lcd/";
    rep.text +=
        fmt::format("  LCD: {} frames (lcd/NNNN.png up to {:04d}, times in lcd/frames.txt)\n",
                    shots.size(), shots.back().frame.index);
    for (const std::string& w : soc.lcd.warnings()) {
        rep.text += "  warning: LCD " + w + "\n";
    }
}

// The camera: what was in front of it, the sensor's frame time, the frames the DVP captured, and
// camera/frames.txt ("<index> <VSYNC us> <end us> <captured|skipped> <scene frame>").
void add_camera_frames(const FirmwareSoc& soc, platform::RunReport& rep,
                       nlohmann::ordered_json& files) {
    const std::vector<dvp::Dvp::FrameRecord>& frames = soc.dvp.frames();
    size_t captured = 0;
    std::string list;
    for (size_t i = 0; i < frames.size(); ++i) {
        const dvp::Dvp::FrameRecord& f = frames[i];
        captured += f.captured ? 1 : 0;
        list += fmt::format("{} {:.3f} {:.3f} {} {}\n", i, f.start.to_seconds() * 1e6,
                            f.end.to_seconds() * 1e6, f.captured ? "captured" : "skipped", f.scene);
    }
    if (!frames.empty()) {
        rep.files.push_back({"camera/frames.txt", {list.begin(), list.end()}});
        files["camera"] = "camera/frames.txt";
        rep.text += fmt::format(
            "  camera: {} in front of the {}; {} frames, {} captured by the DVP "
            "(camera/frames.txt)\n    {}\n",
            soc.camera().scene().describe(), soc.camera().name(), frames.size(), captured,
            soc.dvp.timing());
    }
    if (!soc.camera().aspect_note().empty()) {
        rep.text += "  note: " + soc.camera().aspect_note() + "\n";
    }
    for (const std::string& w : soc.dvp.warnings()) {
        rep.text += "  warning: DVP " + w + "\n";
    }
    for (const std::string& w : soc.camera().sensor().warnings()) {
        rep.text += "  warning: camera " + w + "\n";
    }
}

// How much of [a, b) the spans cover (in time order, not overlapping each other). Asked for
// intervals in time order: `from` keeps where the last one started looking.
double covered(const std::vector<std::pair<double, double>>& spans, double a, double b,
               size_t& from) {
    while (from < spans.size() && spans[from].second <= a) {
        ++from;
    }
    double t = 0;
    for (size_t i = from; i < spans.size() && spans[i].first < b; ++i) {
        t += std::max(0.0, std::min(spans[i].second, b) - std::max(spans[i].first, a));
    }
    return t;
}

double us(const sc_time& t) {
    return t.to_seconds() * 1e6;
}

// The frame time: for each LCD frame after the first, the time since the previous one's last
// pixel, and how much of it the camera (captured frames, VSYNC to last line), the KPU (its layers)
// and the LCD (the frame's first to last pixel) were busy; in the text their means from the third
// frame on (the interval to the second holds the application's start: its first frame is
// usually a cleared screen).
nlohmann::ordered_json frame_times(const FirmwareSoc& soc, platform::RunReport& rep) {
    const std::vector<FirmwareSoc::LcdShot>& shots = soc.lcd_frames();
    std::vector<std::pair<double, double>> camera, kpu;
    for (const dvp::Dvp::FrameRecord& f : soc.dvp.frames()) {
        if (f.captured) {
            camera.emplace_back(us(f.start), us(f.end));
        }
    }
    for (const kpu::LayerRecord& l : soc.k210.kpu.layers()) {
        kpu.emplace_back(static_cast<double>(l.start_ps) / 1e6,
                         static_cast<double>(l.end_ps) / 1e6);
    }
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    double total = 0, cam = 0, ai = 0, lcd = 0;
    size_t camera_from = 0, kpu_from = 0;
    for (size_t i = 1; i < shots.size(); ++i) {
        const double a = us(shots[i - 1].at), b = us(shots[i].at);
        const double c = covered(camera, a, b, camera_from), k = covered(kpu, a, b, kpu_from);
        const double l = b - std::max(a, us(shots[i].first));
        list.push_back({{"frame", shots[i].frame.index},
                        {"frame_time_us", b - a},
                        {"camera_us", c},
                        {"kpu_us", k},
                        {"lcd_us", l}});
        if (i >= 2) {
            total += b - a, cam += c, ai += k, lcd += l;
        }
    }
    if (list.size() >= 2) {
        const auto n = static_cast<double>(list.size() - 1);
        rep.text += fmt::format(
            "  frame time (LCD frame to frame, mean of {}): {:.3f} ms ({:.2f} frames/s); busy in "
            "it: "
            "camera {:.3f} ms ({:.0f}%), KPU {:.3f} ms ({:.0f}%), LCD {:.3f} ms ({:.0f}%)\n",
            list.size() - 1, total / n / 1e3, n * 1e6 / total, cam / n / 1e3, 100 * cam / total,
            ai / n / 1e3, 100 * ai / total, lcd / n / 1e3, 100 * lcd / total);
    }
    return list;
}

// A "kpu inference" track: the KPU's layers between one LCD frame and the next (a camera
// application runs its model once a frame), as one span from the first layer's start to the last
// one's end, named for the frame that shows its result.
void trace_inferences(const FirmwareSoc& soc, sim::TraceWriter& trace) {
    const std::vector<kpu::LayerRecord>& layers = soc.k210.kpu.layers();
    const std::vector<FirmwareSoc::LcdShot>& shots = soc.lcd_frames();
    if (layers.empty() || shots.empty()) {
        return;
    }
    const int track = trace.track("kpu inference");
    size_t l = 0;
    for (const FirmwareSoc::LcdShot& s : shots) {
        const uint64_t until = sim::to_ps(s.at);
        uint64_t first = 0, last = 0;
        size_t n = 0;
        for (; l < layers.size() && layers[l].end_ps <= until; ++l, ++n) {
            first = n == 0 ? layers[l].start_ps : first;
            last = layers[l].end_ps;
        }
        if (n > 0) {
            trace.complete(track, fmt::format("{} layers, shown in frame {}", n, s.frame.index),
                           "kpu", first, last - first);
        }
    }
}

}  // namespace

nlohmann::ordered_json add_frames(const FirmwareSoc& soc, platform::RunReport& rep,
                                  nlohmann::ordered_json& files) {
    add_lcd_frames(soc, rep, files);
    add_camera_frames(soc, rep, files);
    nlohmann::ordered_json lcd = nlohmann::ordered_json::array();
    for (const FirmwareSoc::LcdShot& s : soc.lcd_frames()) {
        lcd.push_back({{"index", s.frame.index},
                       {"first_pixel_us", us(s.first)},
                       {"last_pixel_us", us(s.at)},
                       {"file", s.frame.rgb565.empty() ? nlohmann::ordered_json(nullptr)
                                                       : nlohmann::ordered_json(fmt::format(
                                                             "lcd/{:04d}.png", s.frame.index))},
                       {"displayed", s.frame.displayed}});
    }
    nlohmann::ordered_json camera = nlohmann::ordered_json::array();
    for (const dvp::Dvp::FrameRecord& f : soc.dvp.frames()) {
        camera.push_back({{"vsync_us", us(f.start)},
                          {"end_us", us(f.end)},
                          {"captured", f.captured},
                          {"scene_frame", f.scene}});
    }
    if (soc.frames_done()) {
        rep.text +=
            fmt::format("  stopped after {} LCD frames (--max-frames)\n", soc.lcd_frames().size());
    }
    return {{"lcd", lcd},
            {"camera", camera},
            {"camera_timing", soc.dvp.timing()},
            {"frame_times", frame_times(soc, rep)}};
}

void trace_frames(const FirmwareSoc& soc, sim::TraceWriter& trace) {
    if (!trace.enabled()) {
        return;
    }
    using sim::to_ps;
    if (!soc.dvp.frames().empty()) {
        const int camera = trace.track("camera");
        size_t n = 0;
        for (const dvp::Dvp::FrameRecord& f : soc.dvp.frames()) {
            trace.complete(camera,
                           f.captured ? fmt::format("frame {} (scene {})", n, f.scene)
                                      : fmt::format("frame {} skipped", n),
                           "camera", to_ps(f.start), f.captured ? to_ps(f.end - f.start) : 0);
            ++n;
        }
    }
    trace_inferences(soc, trace);
    if (!soc.lcd_frames().empty()) {
        const int lcd = trace.track("lcd");
        for (const FirmwareSoc::LcdShot& s : soc.lcd_frames()) {
            trace.complete(lcd, fmt::format("frame {}", s.frame.index), "lcd", to_ps(s.first),
                           to_ps(s.at - s.first));
        }
    }
}

}  // namespace npu::k210
