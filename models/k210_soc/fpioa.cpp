#include "models/k210_soc/fpioa.h"

#include <fmt/format.h>

namespace npu::soc {

using sim::Access;

namespace {
// fpioa_io_config_t's fields (SDK fpioa.h).
constexpr uint32_t kOeEn = 1u << 12, kOeInv = 1u << 13, kDoSel = 1u << 14, kDoInv = 1u << 15;
constexpr uint32_t kPu = 1u << 16, kIeEn = 1u << 20, kIeInv = 1u << 21, kDiInv = 1u << 22;
constexpr uint32_t kPadDi = 1u << 31;
constexpr unsigned kTieWords = PadMatrix::kFunctions / 32;
}  // namespace

void PadMatrix::set_tie(unsigned word, uint32_t enable, uint32_t value) {
    m_tie_en[word] = enable;
    m_tie_val[word] = value;
}

void PadMatrix::drive(unsigned function, bool enable, bool level) {
    m_oe[function] = enable;
    m_do[function] = level;
}

void PadMatrix::index_pads() {
    m_pad_of.fill(-1);
    for (unsigned p = kPads; p-- > 0;) {  // the lowest pad wins
        m_pad_of[function_of(p)] = static_cast<int>(p);
    }
}

// The pad's output enable: the static enable AND the block's own enable (inverted by oe_inv).
bool PadMatrix::chip_drives(unsigned pad) const {
    const uint32_t io = m_io[pad];
    const unsigned f = function_of(pad);
    return (io & kOeEn) != 0 && (m_oe[f] != ((io & kOeInv) != 0));
}

bool PadMatrix::pad_level(unsigned pad) const {
    const uint32_t io = m_io[pad];
    if (chip_drives(pad)) {
        const unsigned f = function_of(pad);
        const bool out = (io & kDoSel) != 0 ? m_oe[f] : m_do[f];
        return out != ((io & kDoInv) != 0);
    }
    if (m_external[pad]) {
        return *m_external[pad];
    }
    return (io & kPu) != 0;
}

bool PadMatrix::input(unsigned function) const {
    if ((m_tie_en[function / 32] >> (function % 32)) & 1u) {
        return ((m_tie_val[function / 32] >> (function % 32)) & 1u) != 0;
    }
    const int pad = pad_of(function);
    if (pad < 0) {
        return false;
    }
    const uint32_t io = m_io[static_cast<unsigned>(pad)];
    if ((io & kIeEn) == 0 || (io & kIeInv) != 0) {
        return false;
    }
    return pad_level(static_cast<unsigned>(pad)) != ((io & kDiInv) != 0);
}

Fpioa::Fpioa(sc_core::sc_module_name name, sc_core::sc_time access_latency)
    : sc_module(name)
    , regs("regs", "fpioa", kBytes, access_latency) {
    for (unsigned p = 0; p < PadMatrix::kPads; ++p) {
        sim::Register& r =
            regs.add({fmt::format("io[{}]", p), 4 * p, 4, 0, Access::RW, ~kPadDi, true});
        r.on_write([this, p, &r](uint64_t) {
            m_pads.set_io(p, static_cast<uint32_t>(r.value()));
            changed(regs.access_time());
        });
        r.on_read_pure([this, p](uint64_t stored) {
            return stored | (m_pads.pad_level(p) ? uint64_t{kPadDi} : 0);
        });
    }
    std::array<sim::Register*, kTieWords> en{}, val{};
    for (unsigned w = 0; w < kTieWords; ++w) {
        en[w] = &regs.add(
            {fmt::format("tie.en[{}]", w), 0xc0 + 4 * w, 4, 0, Access::RW, 0xffffffff, true});
        val[w] = &regs.add(
            {fmt::format("tie.val[{}]", w), 0xe0 + 4 * w, 4, 0, Access::RW, 0xffffffff, true});
    }
    for (unsigned w = 0; w < kTieWords; ++w) {
        auto update = [this, w, e = en[w], v = val[w]](uint64_t) {
            m_pads.set_tie(w, static_cast<uint32_t>(e->value()), static_cast<uint32_t>(v->value()));
            changed(regs.access_time());
        };
        en[w]->on_write(update);
        val[w]->on_write(update);
    }
    SC_HAS_PROCESS(Fpioa);
    SC_THREAD(play);
}

void Fpioa::on_change(std::function<void(sc_core::sc_time)> listener) {
    m_listeners.push_back(std::move(listener));
}

void Fpioa::set_script(std::vector<PinEvent> events) {
    m_script = std::move(events);
}

void Fpioa::changed(sc_core::sc_time at) {
    for (const auto& l : m_listeners) {
        l(at);
    }
}

void Fpioa::play() {
    for (const PinEvent& e : m_script) {
        const sc_core::sc_time at(static_cast<double>(e.at_ps), sc_core::SC_PS);
        if (at > sc_core::sc_time_stamp()) {
            sc_core::wait(at - sc_core::sc_time_stamp());
        }
        m_pads.set_external(e.pad, e.level);
        changed(sc_core::sc_time_stamp());
    }
}

}  // namespace npu::soc
