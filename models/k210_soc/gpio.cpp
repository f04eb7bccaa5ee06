#include "models/k210_soc/gpio.h"

#include <fmt/format.h>

namespace npu::soc {

using sim::Access;

namespace {
constexpr uint64_t kFull32 = 0xffffffff;
}  // namespace

void PinDriver::update(uint32_t levels, uint32_t driven, sc_core::sc_time at) {
    const uint32_t now = levels & driven;
    const uint32_t changed = (now ^ (m_levels & m_driven)) | (driven & ~m_driven);
    m_levels = levels, m_driven = driven;
    for (unsigned pin = 0; pin < 32; ++pin) {
        if ((changed >> pin) & 1u) {
            m_sink(pin, ((now >> pin) & 1u) != 0, true, at);
        }
    }
}

// ---------------------------------------------------------------- GPIOHS

Gpiohs::Gpiohs(sc_core::sc_module_name name, sc_core::sc_time access_latency, Fpioa& fpioa,
               PinSink sink)
    : sc_module(name)
    , m_fpioa(fpioa)
    , m_pins(std::move(sink))
    , regs("regs", "gpiohs", kBytes, access_latency) {
    static const char* const kNames[] = {
        "input_val", "input_en", "output_en", "output_val", "pullup_en", "drive",
        "rise_ie",   "rise_ip",  "fall_ie",   "fall_ip",    "high_ie",   "high_ip",
        "low_ie",    "low_ip",   "iof_en",    "iof_sel",    "output_xor"};
    for (unsigned i = 0; i < kRegs; ++i) {
        const bool ip = i == kRiseIp || i == kFallIp || i == kHighIp || i == kLowIp;
        const Access a = i == kInputVal ? Access::RO_WI : ip ? Access::W1C : Access::RW;
        m_r[i] = &regs.add({kNames[i], 4 * uint64_t{i}, 4, 0, a, kFull32, true});
    }
    for (unsigned p = 0; p < kPins; ++p) {
        irq.emplace_back(fmt::format("irq{}", p).c_str());
    }
    m_r[kInputVal]->on_read_pure([this](uint64_t) { return uint64_t{m_in}; });
    for (Reg r : {kOutputEn, kOutputVal, kOutputXor}) {
        m_r[r]->on_write([this](uint64_t) { drive(); });
    }
    m_r[kInputEn]->on_write([this](uint64_t) { sample(regs.access_time()); });
    // A cleared level kind is set again at once while its level lasts.
    for (Reg r : {kRiseIe, kRiseIp, kFallIe, kFallIp, kHighIe, kHighIp, kLowIe, kLowIp}) {
        m_r[r]->on_write([this](uint64_t) {
            m_r[kHighIp]->set_value(reg(kHighIp) | m_in);
            m_r[kLowIp]->set_value(reg(kLowIp) | ~m_in);
            update_lines();
        });
    }
    m_fpioa.on_change([this](sc_core::sc_time at) { sample(at); });
    sample(sc_core::SC_ZERO_TIME);
}

void Gpiohs::drive() {
    const uint32_t levels = reg(kOutputVal) ^ reg(kOutputXor), driven = reg(kOutputEn);
    m_pins.update(levels, driven, regs.access_time());
    for (unsigned p = 0; p < kPins; ++p) {
        m_fpioa.set_output(FpioaFunction::kGpiohs0 + p, (driven >> p) & 1u, (levels >> p) & 1u);
    }
    m_fpioa.changed(regs.access_time());
}

// The inputs as the pads give them now: edges and levels latched, changes reported.
void Gpiohs::sample(sc_core::sc_time at) {
    uint32_t in = 0;
    const uint32_t enabled = reg(kInputEn);
    for (unsigned p = 0; p < kPins; ++p) {
        if (((enabled >> p) & 1u) && m_fpioa.pads().input(FpioaFunction::kGpiohs0 + p)) {
            in |= 1u << p;
        }
    }
    const uint32_t changed = (in ^ m_in) & enabled;
    for (unsigned p = 0; p < kPins; ++p) {
        if ((changed >> p) & 1u) {
            m_pins.report_input(p, ((in >> p) & 1u) != 0, at);
        }
    }
    m_r[kRiseIp]->set_value(reg(kRiseIp) | (in & ~m_in));
    m_r[kFallIp]->set_value(reg(kFallIp) | (~in & m_in));
    m_r[kHighIp]->set_value(reg(kHighIp) | in);
    m_r[kLowIp]->set_value(reg(kLowIp) | ~in);
    m_in = in;
    update_lines();
}

void Gpiohs::update_lines() {
    const uint32_t active = (reg(kRiseIp) & reg(kRiseIe)) | (reg(kFallIp) & reg(kFallIe)) |
                            (reg(kHighIp) & reg(kHighIe)) | (reg(kLowIp) & reg(kLowIe));
    for (unsigned p = 0; p < kPins; ++p) {
        irq[p].set(((active >> p) & 1u) != 0);
    }
}

// ---------------------------------------------------------------- GPIO (DW_apb_gpio)

DwGpio::DwGpio(sc_core::sc_module_name name, sc_core::sc_time access_latency, Fpioa& fpioa,
               PinSink sink)
    : sc_module(name)
    , irq("irq")
    , m_fpioa(fpioa)
    , m_pins(std::move(sink))
    , regs("regs", "gpio", kBytes, access_latency) {
    m_data_output = &regs.add({"data_output", 0x00, 4, 0, Access::RW, 0xff, true});
    m_direction = &regs.add({"direction", 0x04, 4, 0, Access::RW, 0xff, true});
    regs.add({"source", 0x08, 4, 0, Access::RW, kFull32, true});
    m_enable = &regs.add({"interrupt_enable", 0x30, 4, 0, Access::RW, 0xff, true});
    m_mask = &regs.add({"interrupt_mask", 0x34, 4, 0, Access::RW, 0xff, true});
    m_level = &regs.add({"interrupt_level", 0x38, 4, 0, Access::RW, 0xff, true});
    m_polarity = &regs.add({"interrupt_polarity", 0x3c, 4, 0, Access::RW, 0xff, true});
    regs.add({"interrupt_status", 0x40, 4, 0, Access::RO, 0, true}).on_read_pure([this](uint64_t) {
        return uint64_t{raw_status() & ~m_mask->value()};
    });
    regs.add({"interrupt_status_raw", 0x44, 4, 0, Access::RO, 0, true})
        .on_read_pure([this](uint64_t) { return uint64_t{raw_status()}; });
    regs.add({"interrupt_debounce", 0x48, 4, 0, Access::RW, 0xff, true});
    regs.add({"interrupt_clear", 0x4c, 4, 0, Access::WO_RAZ, 0xff, true})
        .on_write([this](uint64_t v) {
            m_edges &= ~static_cast<uint32_t>(v);
            sample(regs.access_time());
        });
    regs.add({"data_input", 0x50, 4, 0, Access::RO_WI, 0, true}).on_read_pure([this](uint64_t) {
        return uint64_t{m_in};
    });
    regs.add({"sync_level", 0x60, 4, 0, Access::RW, kFull32, true});
    regs.add({"id_code", 0x64, 4, 0, Access::RO_WI, 0, true});
    m_bothedge = &regs.add({"interrupt_bothedge", 0x68, 4, 0, Access::RW, 0xff, true});
    for (sim::Register* r : {m_data_output, m_direction}) {
        r->on_write([this](uint64_t) { drive(); });
    }
    for (sim::Register* r : {m_enable, m_mask, m_level, m_polarity, m_bothedge}) {
        r->on_write([this](uint64_t) { sample(regs.access_time()); });
    }
    m_fpioa.on_change([this](sc_core::sc_time at) { sample(at); });
}

void DwGpio::drive() {
    const auto levels = static_cast<uint32_t>(m_data_output->value());
    const auto driven = static_cast<uint32_t>(m_direction->value());
    m_pins.update(levels, driven, regs.access_time());
    for (unsigned p = 0; p < kPins; ++p) {
        m_fpioa.set_output(FpioaFunction::kGpio0 + p, (driven >> p) & 1u, (levels >> p) & 1u);
    }
    m_fpioa.changed(regs.access_time());
}

// Interrupts come from input pins (direction 0) that interrupt_enable selects: a level while it
// lasts (interrupt_level 0), or a latched edge.
uint32_t DwGpio::raw_status() const {
    const auto inputs = static_cast<uint32_t>(m_enable->value() & ~m_direction->value());
    const auto edge = static_cast<uint32_t>(m_level->value());
    const auto high = static_cast<uint32_t>(m_polarity->value());
    const uint32_t level_active = (m_in & high) | (~m_in & ~high);
    return ((level_active & ~edge) | (m_edges & edge)) & inputs & 0xffu;
}

void DwGpio::sample(sc_core::sc_time at) {
    uint32_t in = 0;
    for (unsigned p = 0; p < kPins; ++p) {
        if (m_fpioa.pads().input(FpioaFunction::kGpio0 + p)) {
            in |= 1u << p;
        }
    }
    const uint32_t inputs = static_cast<uint32_t>(~m_direction->value()) & 0xffu;
    const uint32_t changed = (in ^ m_in) & inputs;
    for (unsigned p = 0; p < kPins; ++p) {
        if ((changed >> p) & 1u) {
            m_pins.report_input(p, ((in >> p) & 1u) != 0, at);
        }
    }
    const auto high = static_cast<uint32_t>(m_polarity->value());
    const auto both = static_cast<uint32_t>(m_bothedge->value());
    const uint32_t rise = in & ~m_in, fall = ~in & m_in;
    m_edges |= ((rise & (high | both)) | (fall & (~high | both))) &
               static_cast<uint32_t>(m_enable->value() & m_level->value()) & inputs;
    m_in = in;
    irq.set((raw_status() & ~static_cast<uint32_t>(m_mask->value())) != 0);
}

}  // namespace npu::soc
