#include "platforms/k210/soc/soc_map.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "models/k210_dma/dmac_regs.h"
#include "models/k210_kpu/kpu_regs.h"
#include "sim/core/address_map.h"  // format_size

namespace npu::k210 {

namespace {
constexpr unsigned kLastIrq = 65;  // IRQN_GPIOHS31_INTERRUPT: the PLIC's sources are 1-65
constexpr uint64_t kMaxBytes = uint64_t{1} << 40;  // bases and sizes: the harts' 40-bit space

// A modelled block: its window may grow, not shrink below the registers the model decodes.
SocDevice block(const char* name, uint64_t base, uint64_t size, unsigned irq = 0,
                unsigned irqs = 0) {
    return {name, base, size, irq, irq == 0 ? 0 : std::max(irqs, 1u), true, size};
}
// A block npusim does not model (docs/firmware.md lists them): only named in a bus fault.
SocDevice absent(const char* name, uint64_t base, uint64_t size) {
    return {name, base, size, 0, 0, false, 1};
}

// A block whose base another key sets (read_k210_config calls SocMap::place).
SocDevice placed(const char* name, uint64_t base, uint64_t size, const char* key, unsigned irq = 0,
                 unsigned irqs = 0) {
    SocDevice d = block(name, base, size, irq, irqs);
    d.placed_by = key;
    return d;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    return s;
}
}  // namespace

// Bases: the SDK's platform.h (<NAME>_BASE_ADDR); sizes: the model's register window (the PLIC's
// and CLINT's the RISC-V platform's, WDT the DesignWare block's 256 bytes), the unmodelled
// blocks' the SDK's *_SIZE or the 64 KiB APB slot; interrupts: plic.h's IRQN_* for the blocks
// whose interrupt the model raises (SPI0, SPI3 and UARTHS raise none here).
SocMap SocMap::sdk() {
    SocMap m;
    m.m_devices = {
        // The modelled blocks, in the order a firmware run's record lists them.
        placed("kpu", 0x40800000, kpu::regs::kBlockBytes, "kpu.base_addr", 25),  // IRQN_AI
        placed("dmac", 0x50000000, dma::regs::kBlockBytes, "dmac.base_addr", 27,
               dma::regs::kChannels),  // IRQN_DMA0..5_INTERRUPT
        placed("sysctl", 0x50440000, dma::regs::kSysctlBytes, "dmac.sysctl_base_addr"),
        block("plic", 0x0C000000, 0x4000000),
        block("clint", 0x02000000, 0x10000),
        block("uarths", 0x38000000, 0x1000),
        block("uart1", 0x50210000, 0x1000, 11),  // IRQN_UART1_INTERRUPT
        block("uart2", 0x50220000, 0x1000, 12),
        block("uart3", 0x50230000, 0x1000, 13),
        block("fpioa", 0x502B0000, 0x1000),
        block("gpiohs", 0x38001000, 0x1000, 34, 32),  // IRQN_GPIOHS0..31_INTERRUPT
        block("gpio", 0x50200000, 0x1000, 23),        // IRQN_APB_GPIO_INTERRUPT
        block("timer0", 0x502D0000, 0x1000, 14, 2),   // IRQN_TIMER0A, IRQN_TIMER0B
        block("timer1", 0x502E0000, 0x1000, 16, 2),
        block("timer2", 0x502F0000, 0x1000, 18, 2),
        block("wdt0", 0x50400000, 0x100, 21),
        block("wdt1", 0x50410000, 0x100, 22),
        block("spi0", 0x52000000, 0x1000),
        block("dvp", 0x50430000, 0x1000, 24),
        block("spi3", 0x54000000, 0x1000),
        // The chip's other blocks.
        absent("fft", 0x42000000, 0x400000),  // FFT_SIZE
        absent("rom", 0x88000000, 0x20000),   // ROM_SIZE
        absent("spi_slave", 0x50240000, 0x10000),
        absent("i2s0", 0x50250000, 0x10000),
        absent("i2s1", 0x50260000, 0x10000),
        absent("i2s2", 0x50270000, 0x10000),
        absent("i2c0", 0x50280000, 0x10000),
        absent("i2c1", 0x50290000, 0x10000),
        absent("i2c2", 0x502A0000, 0x10000),
        absent("sha256", 0x502C0000, 0x10000),
        absent("otp", 0x50420000, 0x10000),
        absent("aes", 0x50450000, 0x10000),
        absent("rtc", 0x50460000, 0x10000),
        absent("spi1", 0x53000000, 0x1000000),
    };
    return m;
}

const SocDevice& SocMap::at(std::string_view name) const {
    for (const SocDevice& d : m_devices) {
        if (d.name == name) {
            return d;
        }
    }
    throw std::out_of_range(fmt::format("K210 SoC map: no block '{}'", name));
}

void SocMap::place(std::string_view name, uint64_t base_addr) {
    for (SocDevice& d : m_devices) {
        if (d.name == name && d.placed_by != nullptr) {
            d.base_addr = base_addr;
            return;
        }
    }
    throw std::out_of_range(fmt::format("K210 SoC map: no block '{}' placed by a key", name));
}

namespace {
// One block's keys over its defaults.
void read_block(const sim::ConfigNode& n, SocDevice& d) {
    if (d.placed_by == nullptr) {
        d.base_addr = n.get<uint64_t>("base_addr", d.base_addr, 0u, kMaxBytes - 1);
    } else if (n.has("base_addr")) {
        n.error_at("base_addr", fmt::format("{}'s base is {}", d.name, d.placed_by));
        n.get<uint64_t>("base_addr", 0u);  // read, so that it is not also reported as unknown
    }
    d.size_bytes = n.get_bytes("size_bytes", d.size_bytes);
    if (d.size_bytes > kMaxBytes) {
        n.error_at("size_bytes", fmt::format("{} is larger than the 40-bit address space", d.name));
        d.size_bytes = d.min_size_bytes;
    } else if (d.size_bytes < d.min_size_bytes) {
        n.error_at("size_bytes", fmt::format("{} needs at least {:#x} bytes (its registers), got "
                                             "{:#x}",
                                             d.name, d.min_size_bytes, d.size_bytes));
        d.size_bytes = d.min_size_bytes;
    }
    if (!n.has("irq")) {
        return;
    }
    if (d.irq_count == 0) {
        n.error_at("irq", fmt::format("npusim raises no interrupt of {}", d.name));
        n.get<unsigned>("irq", 0u);  // read, so that it is not also reported as unknown
        return;
    }
    d.irq = n.get<unsigned>("irq", d.irq, 1u, kLastIrq + 1 - d.irq_count);
}

bool has_own(const sim::ConfigNode& platform, const SocDevice& d, const char* key) {
    const auto devices = platform.optional_child("devices");
    const auto own = devices ? devices->optional_child(d.name) : std::nullopt;
    return own && own->has(key);
}

// Where a problem of block `d`'s `key` is reported: at the key under platform.devices, else at the
// key that placed the block, else at platform.devices.
void report(const sim::ConfigNode& platform, const SocDevice& d, const char* key,
            const std::string& why) {
    if (has_own(platform, d, key)) {
        platform.child("devices").child(d.name).error_at(key, why);
        return;
    }
    if (d.placed_by != nullptr && std::string_view(key) == "base_addr") {
        const std::string_view by = d.placed_by;  // "kpu.base_addr"
        const size_t dot = by.find('.');
        if (const auto n = platform.optional_child(by.substr(0, dot))) {
            n->error_at(by.substr(dot + 1), why);
            return;
        }
    }
    platform.error_at("devices", fmt::format("{}: {}", d.name, why));
}

// A clash of blocks `a` and `b` (a comes later in the map), reported at the one the file moved,
// named first.
void clash(const sim::ConfigNode& platform, const SocDevice& a, const SocDevice& b,
           const char* key) {
    const bool moved_b = !has_own(platform, a, key) &&
                         (has_own(platform, b, key) ||
                          (b.placed_by != nullptr && std::string_view(key) == "base_addr" &&
                           a.placed_by == nullptr));
    const SocDevice& x = moved_b ? b : a;
    const SocDevice& y = moved_b ? a : b;
    if (std::string_view(key) == "base_addr") {
        report(platform, x, key,
               fmt::format("{} [{:#x}, {:#x}] overlaps {} [{:#x}, {:#x}]", x.name, x.base_addr,
                           x.last(), y.name, y.base_addr, y.last()));
    } else {
        report(
            platform, x, key,
            fmt::format("PLIC sources {}-{} of {} are also {}'s ({}-{})", x.irq,
                        x.irq + x.irq_count - 1, x.name, y.name, y.irq, y.irq + y.irq_count - 1));
    }
}
}  // namespace

void SocMap::read(const sim::ConfigNode& platform) {
    if (const auto devices = platform.optional_child("devices")) {
        for (SocDevice& d : m_devices) {
            if (const auto n = devices->optional_child(d.name)) {
                read_block(*n, d);
            }
        }
    }
    for (size_t i = 0; i < m_devices.size(); ++i) {
        const SocDevice& a = m_devices[i];
        for (size_t j = 0; j < i; ++j) {
            const SocDevice& b = m_devices[j];
            if (a.base_addr <= b.last() && b.base_addr <= a.last()) {
                clash(platform, a, b, "base_addr");
            }
            if (a.irq_count != 0 && b.irq_count != 0 && a.irq < b.irq + b.irq_count &&
                b.irq < a.irq + a.irq_count) {
                clash(platform, a, b, "irq");
            }
        }
    }
}

std::string SocMap::unmodelled(uint64_t addr) const {
    for (const SocDevice& d : m_devices) {
        if (!d.modelled && d.contains(addr)) {
            const std::string name = upper(d.name);
            return fmt::format(
                "in {} ({}_BASE_ADDR {:#x}), a block of the K210 npusim does not model yet "
                "(docs/firmware.md lists the blocks it models)",
                name, name, d.base_addr);
        }
    }
    return "";
}

std::string SocMap::table() const {
    std::vector<const SocDevice*> order;
    for (const SocDevice& d : m_devices) {
        order.push_back(&d);
    }
    std::sort(order.begin(), order.end(),
              [](const SocDevice* a, const SocDevice* b) { return a->base_addr < b->base_addr; });
    std::string out;
    for (const SocDevice* d : order) {
        std::string irq = "-";
        if (d->irq_count == 1) {
            irq = std::to_string(d->irq);
        } else if (d->irq_count > 1) {
            irq = fmt::format("{}-{}", d->irq, d->irq + d->irq_count - 1);
        }
        std::string line = fmt::format("  {:#010x}-{:#010x}  {:>8}  {:<10} PLIC {:<6}{}",
                                       d->base_addr, d->last(), sim::format_size(d->size_bytes),
                                       d->name, irq, d->modelled ? "" : "  not modelled");
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    return out;
}

}  // namespace npu::k210
