// The board's camera (firmware_soc.h, docs/k210_camera.md): the DVP's registers, its AXI master
// into memory, its interrupt (PLIC 24), and the sensor K210Config::camera names on its SCCB bus,
// with the scene in front of it.
#include "platforms/k210/firmware/firmware_soc.h"

namespace npu::k210 {

void FirmwareSoc::connect_camera(const CameraConfig& c) {
    sim::Router& r = k210.router;
    r.map("dvp", FirmwareMap::kDvp, 0x1000, r.bind_target(dvp.regs.socket));
    dvp.axi.socket.bind(r.target_socket);
    plic.connect(FirmwareMap::kIrqDvp, dvp.irq);
    k210.stats().attach(dvp.stats());
    m_camera = std::make_unique<BoardCamera>(camera::make_sensor(c.sensor),
                                             std::make_unique<camera::FrameSource>());
    dvp.attach(m_camera.get());
}

void FirmwareSoc::set_scene(std::unique_ptr<camera::FrameSource> scene) {
    m_camera->set_scene(std::move(scene));
}

}  // namespace npu::k210
