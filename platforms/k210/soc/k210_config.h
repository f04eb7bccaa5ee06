// Typed configuration of the K210 platform (configs/k210.yaml): the common platform keys plus the
// KPU, the DMAC and the CPU cost model the driver uses for CPU layers. Keys: docs/config.md.
#pragma once

#include <cstdint>
#include <string>

#include "models/k210_dma/dmac.h"
#include "models/k210_kpu/kpu_config.h"
#include "models/rv64/cpu.h"
#include "platforms/common/platform_config.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "platforms/k210/soc/soc_map.h"

namespace npu::k210 {

// The board's LCD on SPI0 (firmware runs; docs/k210_lcd.md): its controller, the slave select it
// answers, the pad whose level is its D/C line (a GPIOHS output the FPIOA routes there), its
// colour order. The defaults are the KD233's (the SDK demos' board_config.h default).
struct LcdConfig {
    std::string controller = "nt35310";  // or st7789
    unsigned cs = 3;                     // SPI_CHIP_SELECT_3
    unsigned dcx_pad = 8;                // IO 8 on the KD233, IO 38 on the Maix boards
    bool bgr = true;                     // the KD233's panel; Maix's ST7789: false
};

// The camera on the board's DVP and SCCB (firmware runs; docs/k210_camera.md): its sensor. The
// default is the SDK demos' board_config.h default (OV5640).
struct CameraConfig {
    std::string sensor = "ov5640";  // or ov2640 (the Maix boards')
};

struct K210Config {
    platform::PlatformConfig platform;  // name, quantum, CPU bus, memories (the 6 MiB SRAM)
    uint64_t kpu_base_addr = 0x40800000;
    uint64_t ai_ram_base_addr = 0x80600000;
    uint64_t ai_ram_io_addr = 0x40600000;  // uncached alias, what drivers use
    uint64_t io_offset = 0x40000000;       // cached -> uncached alias offset (SDK IOMEM)
    uint64_t dmac_base_addr = 0x50000000;
    uint64_t sysctl_base_addr = 0x50440000;
    unsigned dma_channel = 5;  // the SDK demos use DMAC_CHANNEL5
    kpu::KpuConfig kpu;
    dma::DmacConfig dmac;
    CpuModel cpu;
    // Firmware runs: cycles per instruction by class (cpu.cpi; docs/firmware.md, "Time"). Assumed
    // for a single-issue in-order core, not yet fitted to a board.
    rv64::CycleModel cpi = default_cpi();
    static rv64::CycleModel default_cpi();
    // Firmware runs: CPU cycles an access through an uncached window (SRAM or AI SRAM alias) costs
    // beyond its bus transfer, per access whatever its width (cpu.uncached_load_cycles,
    // cpu.uncached_store_cycles): what makes the hart's byte loops over the AI SRAM take the
    // boards' 34.24 (nncase#95's read-back) and 26.52 (nncase#97's upload) cycles per byte
    // (docs/firmware.md "Time").
    double uncached_load_cycles = 23.24, uncached_store_cycles = 15.52;
    LcdConfig lcd;
    CameraConfig camera;
    // Every block's base, size and PLIC sources (platform.devices; the KPU's, DMAC's and SYSCTL's
    // bases are the fields above, copied in by read_k210_config).
    SocMap devices = SocMap::sdk();
};

// Reads a `platform:` map of kind k210; problems are recorded in the document (call finish()).
K210Config read_k210_config(const sim::ConfigNode& platform);

}  // namespace npu::k210
