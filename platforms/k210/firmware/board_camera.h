// The board's camera as the DVP sees it (models/k210_dvp/dvp.h's Camera): a sensor model
// (models/camera/sensor.h) with the scene in front of it (frame_source.h). docs/k210_camera.md.
#pragma once

#include <memory>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "models/camera/frame_source.h"
#include "models/camera/sensor.h"
#include "models/k210_dvp/dvp.h"

namespace npu::k210 {

class BoardCamera : public dvp::Camera {
public:
    BoardCamera(std::unique_ptr<camera::Sensor> sensor, std::unique_ptr<camera::FrameSource> scene)
        : m_sensor(std::move(sensor))
        , m_scene(std::move(scene)) {}
    void set_scene(std::unique_ptr<camera::FrameSource> scene) { m_scene = std::move(scene); }
    const camera::Sensor& sensor() const { return *m_sensor; }
    const camera::FrameSource& scene() const { return *m_scene; }

    std::string name() const override { return m_sensor->name(); }
    uint8_t sccb_address() const override { return m_sensor->address(); }
    void sccb_write(const std::vector<uint8_t>& bytes) override { m_sensor->sccb_write(bytes); }
    uint8_t sccb_read() override { return m_sensor->sccb_read(); }
    void reset_pin() override { m_sensor->hardware_reset(); }
    dvp::SensorStream stream(double xclk_hz) override {
        m_stream = m_sensor->stream(xclk_hz);
        return {m_stream.on,           m_stream.width,  m_stream.height, m_stream.frame_s,
                m_stream.first_line_s, m_stream.line_s, m_stream.timing};
    }
    // The scene's frame as the sensor sends it; rendered again only when the scene shows another
    // frame or the sensor was programmed otherwise (a still image is resized once).
    std::vector<uint8_t> frame(size_t index, const dvp::SensorStream&) override {
        const sim::Tensor& scene = m_scene->frame(index);
        const auto look = std::make_tuple(m_scene->frames_read(), m_stream.width, m_stream.height,
                                          m_stream.order, m_stream.mirror, m_stream.flip);
        if (m_rendered.empty() || look != m_rendered_look) {
            note_aspect(scene);
            m_rendered = m_sensor->render(scene, m_stream);
            m_rendered_look = look;
        }
        return m_rendered;
    }
    // A scene of another aspect ratio than the sensor's output, stretched to it (once).
    const std::string& aspect_note() const { return m_aspect_note; }

private:
    void note_aspect(const sim::Tensor& scene) {
        const int64_t h = scene.shape()[2], w = scene.shape()[3];
        if (!m_aspect_note.empty() || m_stream.height == 0 ||
            w * m_stream.height == h * int64_t{m_stream.width}) {
            return;
        }
        m_aspect_note = fmt::format(
            "the scene's {}x{} frames are resized to the sensor's {}x{} output, stretched (aspect "
            "{:.2f} to {:.2f}); crop or pad them to {}:{} to keep their proportions",
            w, h, m_stream.width, m_stream.height, static_cast<double>(w) / static_cast<double>(h),
            static_cast<double>(m_stream.width) / m_stream.height, m_stream.width, m_stream.height);
    }
    std::string m_aspect_note;
    std::unique_ptr<camera::Sensor> m_sensor;
    std::unique_ptr<camera::FrameSource> m_scene;
    camera::Stream m_stream;  // the last stream() (its byte order and mirroring for frame())
    std::vector<uint8_t> m_rendered;
    std::tuple<size_t, unsigned, unsigned, camera::PixelOrder, bool, bool> m_rendered_look;
};

}  // namespace npu::k210
