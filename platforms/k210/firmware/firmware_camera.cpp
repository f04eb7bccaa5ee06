// The board's camera (firmware_soc.h, docs/k210_camera.md): the DVP's registers, its AXI master
// into memory, its interrupt (PLIC 24), and the sensor K210Config::camera names on its SCCB bus,
// with the scene in front of it; and the board's flash on SPI3, which the camera demos set up
// first.
#include <fmt/format.h>

#include "platforms/k210/firmware/firmware_soc.h"
#include "sim/core/files.h"

namespace npu::k210 {

void FirmwareSoc::connect_camera(const CameraConfig& c) {
    map_block("dvp", dvp.regs.socket);
    dvp.axi.socket.bind(k210.router.target_socket);
    plic.connect(irq("dvp"), dvp.irq);
    k210.stats().attach(dvp.stats());
    m_camera = std::make_unique<BoardCamera>(camera::make_sensor(c.sensor),
                                             std::make_unique<camera::FrameSource>());
    dvp.attach(m_camera.get());
}

void FirmwareSoc::set_scene(std::unique_ptr<camera::FrameSource> scene) {
    m_camera->set_scene(std::move(scene));
}

void FirmwareSoc::connect_flash() {
    map_block("spi3", spi3.regs.socket);
    k210.stats().attach(spi3.stats());
    spi3.on_end([this](uint32_t ser) {
        if ((ser & (1u << FirmwareMap::kFlashCs)) != 0) {
            flash.deselect();
        }
    });
}

// A frame SPI3 sends with slave select `ser`: its bytes to the flash (MSB first) when selected,
// what the flash sends back in their place.
uint32_t FirmwareSoc::flash_frame(uint32_t ser, unsigned bits, uint32_t value) {
    if ((ser & (1u << FirmwareMap::kFlashCs)) == 0) {
        return bits >= 32 ? ~0u : (1u << bits) - 1;  // nothing there: the line floats high
    }
    uint32_t in = 0;
    for (unsigned b = bits / 8; b-- > 0;) {
        in = (in << 8) | flash.exchange(static_cast<uint8_t>(value >> (8 * b)));
    }
    return in;
}

soc::DwSsi::FrameSink FirmwareSoc::flash_sink() {
    return [this](uint32_t ser, unsigned bits, uint32_t value, const sc_core::sc_time&) {
        return flash_frame(ser, bits, value);
    };
}

void FirmwareSoc::load_flash(const std::string& path, uint32_t offset) {
    try {  // at most the flash's 16 MiB, checked before reading (a 1 GB file was read whole)
        flash.load(offset, sim::read_file(path, flash::W25q::kBytes));
    } catch (const sim::Error& e) {
        throw sim::Error(fmt::format("--flash {}: {}", path, e.what()));
    }
}

}  // namespace npu::k210
