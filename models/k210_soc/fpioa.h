// The K210's FPIOA (field-programmable IO array, 0x502B0000; the SDK's fpioa.h): 48 pads, each
// carrying one of 256 functions as its io[n] register selects (ch_sel), with the register's
// output/input enables, inversions and pulls; 256 tie bits that fix a function's input. The pads'
// routing is plain C++ (PadMatrix); the module adds the registers (io[n].pad_di reads the pad),
// levels from outside the chip (a pin script, pin_script.h) and a notification to the blocks
// whose inputs may have changed. docs/firmware.md, "Pins".
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <systemc>

#include "models/k210_soc/pin_script.h"
#include "models/k210_soc/uart.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

// Function numbers of the SDK's fpioa_function_t used by the models.
struct FpioaFunction {
    static constexpr unsigned kGpiohs0 = 24, kGpio0 = 56, kUart1Rx = 64, kUart1Tx = 65;
    static constexpr unsigned kResv0 = 120, kTimer0Toggle1 = 190;
};

// How the 48 pads and 256 functions connect (io[n] fields as fpioa_io_config_t lays them out).
class PadMatrix {
public:
    static constexpr unsigned kPads = 48, kFunctions = 256;
    // At reset every pad carries function 0 with nothing enabled (assumed: the datasheet gives no
    // reset values; the SDK writes every pad it uses).
    PadMatrix() { index_pads(); }

    void set_io(unsigned pad, uint32_t word) {
        m_io[pad] = word;
        index_pads();
    }
    uint32_t io(unsigned pad) const { return m_io[pad]; }
    void set_tie(unsigned word, uint32_t enable, uint32_t value);
    // A block's output for `function`: whether it drives (its output enable) and the level.
    void drive(unsigned function, bool enable, bool level);
    // A level applied from outside the chip, or none (the pad floats: its pull decides).
    void set_external(unsigned pad, std::optional<bool> level) { m_external[pad] = level; }

    // The lowest pad carrying `function`, or -1 (the SDK's fpioa_set_function keeps one).
    int pad_of(unsigned function) const { return m_pad_of[function & 0xffu]; }
    unsigned function_of(unsigned pad) const { return m_io[pad] & 0xffu; }
    // The pad's level: what the chip drives through it, else the outside level, else its pull
    // (pull-up 1; pull-down or none 0: a floating pad is assumed to read 0).
    bool pad_level(unsigned pad) const;
    // What `function`'s input sees: its tie value when tied, else its pad's level (input enable
    // and inversion applied), else 0 (no pad carries it).
    bool input(unsigned function) const;

private:
    void index_pads();  // m_pad_of from m_io (pads are written rarely, looked up often)
    bool chip_drives(unsigned pad) const;
    std::array<uint32_t, kPads> m_io{};
    std::array<std::optional<bool>, kPads> m_external{};
    std::array<uint32_t, kFunctions / 32> m_tie_en{}, m_tie_val{};
    std::array<bool, kFunctions> m_oe{}, m_do{};
    std::array<int, kFunctions> m_pad_of{};
};

class Fpioa : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x100;  // io[48], tie.en[8], tie.val[8]
    Fpioa(sc_core::sc_module_name name, sc_core::sc_time access_latency);

    const PadMatrix& pads() const { return m_pads; }
    // A block's output for `function`: whether it drives and the level (then changed()).
    void set_output(unsigned function, bool enable, bool level) {
        m_pads.drive(function, enable, level);
    }
    // Something a pad's level depends on changed at `at`: every listener samples again.
    void changed(sc_core::sc_time at);
    // Called with the time whenever an input a block samples may have changed.
    void on_change(std::function<void(sc_core::sc_time)> listener);
    // Levels applied from outside at their times (before the simulation starts).
    void set_script(std::vector<PinEvent> events);

private:
    void play();  // SC_THREAD: applies the script's events at their times

    PadMatrix m_pads;
    std::vector<std::function<void(sc_core::sc_time)>> m_listeners;
    std::vector<PinEvent> m_script;

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
