// The board's camera as the DVP sees it (models/k210_dvp/dvp.h's Camera): a sensor model
// (models/camera/sensor.h) with the scene in front of it (frame_source.h). docs/k210_camera.md.
#pragma once

#include <memory>

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
    std::vector<uint8_t> frame(size_t index, const dvp::SensorStream&) override {
        return m_sensor->render(m_scene->frame(index), m_stream);
    }

private:
    std::unique_ptr<camera::Sensor> m_sensor;
    std::unique_ptr<camera::FrameSource> m_scene;
    camera::Stream m_stream;  // the last stream() (its byte order and mirroring for frame())
};

}  // namespace npu::k210
