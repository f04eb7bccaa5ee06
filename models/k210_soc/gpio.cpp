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
            m_sink(pin, ((now >> pin) & 1u) != 0, at);
        }
    }
}

Gpiohs::Gpiohs(sc_core::sc_module_name name, sc_core::sc_time access_latency, PinSink sink)
    : sc_module(name)
    , m_file("gpiohs", kBytes)
    , m_pins(std::move(sink))
    , regs("regs", m_file.bank, access_latency) {
    static const char* const kNames[] = {
        "input_val", "input_en", "output_en", "output_val", "pullup_en", "drive",
        "rise_ie",   "rise_ip",  "fall_ie",   "fall_ip",    "high_ie",   "high_ip",
        "low_ie",    "low_ip",   "iof_en",    "iof_sel",    "output_xor"};
    for (uint64_t i = 0; i < std::size(kNames); ++i) {
        sim::Register& r = m_file.add(
            {kNames[i], 4 * i, 4, 0, i == 0 ? Access::RO_WI : Access::RW, kFull32, true});
        if (i == 0) {  // what the enabled inputs see: with no external levels, what the pin drives
            r.on_read([this](uint64_t) {
                return (m_output_val->value() ^ m_output_xor->value()) & m_output_en->value();
            });
        } else if (i == 2) {
            m_output_en = &r;
        } else if (i == 3) {
            m_output_val = &r;
        } else if (i == 16) {
            m_output_xor = &r;
        }
    }
    for (sim::Register* r : {m_output_en, m_output_val, m_output_xor}) {
        r->on_write([this](uint64_t) { drive(); });
    }
}

void Gpiohs::drive() {
    m_pins.update(static_cast<uint32_t>(m_output_val->value() ^ m_output_xor->value()),
                  static_cast<uint32_t>(m_output_en->value()), regs.access_time());
}

DwGpio::DwGpio(sc_core::sc_module_name name, sc_core::sc_time access_latency, PinSink sink)
    : sc_module(name)
    , m_file("gpio", kBytes)
    , m_pins(std::move(sink))
    , regs("regs", m_file.bank, access_latency) {
    m_data_output = &m_file.add({"data_output", 0x00, 4, 0, Access::RW, 0xff, true});
    m_direction = &m_file.add({"direction", 0x04, 4, 0, Access::RW, 0xff, true});
    m_file.add({"source", 0x08, 4, 0, Access::RW, kFull32, true});
    static const char* const kInterrupt[] = {
        "interrupt_enable", "interrupt_mask",       "interrupt_level",    "interrupt_polarity",
        "interrupt_status", "interrupt_status_raw", "interrupt_debounce", "interrupt_clear"};
    for (uint64_t i = 0; i < std::size(kInterrupt); ++i) {
        m_file.add({kInterrupt[i], 0x30 + 4 * i, 4, 0, Access::RW, kFull32, true});
    }
    m_file.add({"data_input", 0x50, 4, 0, Access::RO_WI, 0, true}).on_read([this](uint64_t) {
        return m_data_output->value() & m_direction->value();  // no external levels yet
    });
    m_file.add({"sync_level", 0x60, 4, 0, Access::RW, kFull32, true});
    m_file.add({"id_code", 0x64, 4, 0, Access::RO_WI, 0, true});
    m_file.add({"interrupt_bothedge", 0x68, 4, 0, Access::RW, kFull32, true});
    for (sim::Register* r : {m_data_output, m_direction}) {
        r->on_write([this](uint64_t) { drive(); });
    }
}

void DwGpio::drive() {
    m_pins.update(static_cast<uint32_t>(m_data_output->value()),
                  static_cast<uint32_t>(m_direction->value()), regs.access_time());
}

}  // namespace npu::soc
