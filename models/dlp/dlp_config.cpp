#include "models/dlp/dlp_config.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::dlp {

namespace {
constexpr unsigned kConvThreads[] = {4, 9, 16, 25, 36, 49, 64};
}

const char* data_type_name(DataType t) {
    return t == DataType::single ? "single" : "int8";
}

size_t element_bytes(DataType t) {
    return t == DataType::single ? 4 : 1;
}

unsigned DlpConfig::threads_c() const {
    return static_cast<unsigned>(std::lround(std::sqrt(static_cast<double>(conv_thread_number))));
}

unsigned DlpConfig::transfer_n() const {
    unsigned n = 1;
    while (n < threads_c()) {
        n *= 2;
    }
    return n;
}

unsigned DlpConfig::axi_bits() const {
    if (axi_data_width_bits != 0) {
        return axi_data_width_bits;
    }
    return kDdrDataWidthBits;
}

sim::BusConfig DlpConfig::ddr_bus() const {
    sim::BusConfig b;
    b.data_width_bytes = axi_bits() / 8;
    b.max_burst_beats = ddr_max_burst_beats;
    b.burst_latency_cycles = ddr_burst_latency_cycles;
    b.boundary_bytes = 4096;
    b.clock_hz = target_frequency_hz;
    return b;
}

std::vector<std::string> DlpConfig::problems() const {
    std::vector<std::string> p;
    bool known = false;
    for (unsigned t : kConvThreads) {
        known = known || t == conv_thread_number;
    }
    if (!known) {
        p.push_back(
            fmt::format("conv_thread_number is {}, expected one of 4, 9, 16, 25, 36, 49, 64 "
                        "(perfect squares: C = √ConvThreadNumber threads)",
                        conv_thread_number));
    }
    if (fc_thread_number < 2 || fc_thread_number > 64 ||
        (fc_thread_number & (fc_thread_number - 1)) != 0) {
        p.push_back(fmt::format("fc_thread_number is {}, expected a power of two in 2..64",
                                fc_thread_number));
    }
    if (target_frequency_hz < 1'000'000 || target_frequency_hz > 2'000'000'000) {
        p.push_back(
            fmt::format("target_frequency is {} Hz, expected 1 MHz..2 GHz", target_frequency_hz));
    }
    for (const auto* m : {&conv_input_memory_size, &conv_output_memory_size}) {
        const char* name =
            m == &conv_input_memory_size ? "conv_input_memory_size" : "conv_output_memory_size";
        for (uint64_t d : *m) {
            if (d < 1 || d > 8192) {
                p.push_back(fmt::format("{} is [{}, {}, {}], expected three sizes in 1..8192", name,
                                        (*m)[0], (*m)[1], (*m)[2]));
                break;
            }
        }
    }
    for (const auto& [name, v] :
         {std::pair<const char*, uint64_t>{"fc_input_memory_size", fc_input_memory_size},
          {"fc_output_memory_size", fc_output_memory_size}}) {
        if (v < fc_thread_number || v > (uint64_t{1} << 24)) {
            p.push_back(fmt::format("{} is {}, expected fc_thread_number ({})..2^24", name, v,
                                    fc_thread_number));
        }
    }
    const unsigned bits = axi_bits();
    const auto elem_bits = static_cast<unsigned>(element_bytes(data_type) * 8);
    if (bits < 32 || bits > 1024 || (bits & (bits - 1)) != 0) {
        p.push_back(
            fmt::format("axi_data_width_bits is {}, expected a power of two in 32..1024", bits));
    } else if (bits % elem_bits != 0) {
        p.push_back(
            fmt::format("axi_data_width_bits is {}, expected a multiple of the {}-bit {} "
                        "element",
                        bits, elem_bits, data_type_name(data_type)));
    }
    if (ddr_max_burst_beats < 1 || ddr_max_burst_beats > 256) {
        p.push_back(
            fmt::format("ddr.max_burst_beats is {}, expected 1..256 (AXI4)", ddr_max_burst_beats));
    }
    return p;
}

void DlpConfig::validate(const std::string& where) const {
    const std::vector<std::string> p = problems();
    if (p.empty()) {
        return;
    }
    std::string msg = where + ": " + p.front();
    for (size_t i = 1; i < p.size(); ++i) {
        msg += "; " + p[i];
    }
    throw sim::Error(msg);
}

DlpConfig read_dlp_config(const sim::ConfigNode& n, const DlpConfig& base) {
    DlpConfig c = base;
    c.conv_thread_number = n.get<unsigned>("conv_thread_number", c.conv_thread_number);
    c.fc_thread_number = n.get<unsigned>("fc_thread_number", c.fc_thread_number);
    c.data_type = n.get_enum<DataType>("processor_data_type", c.data_type,
                                       {{"single", DataType::single}, {"int8", DataType::int8}});
    c.target_frequency_hz = n.get_hz("target_frequency", c.target_frequency_hz);
    for (auto [key, dst] : {std::pair<const char*, std::array<uint64_t, 3>*>{
                                "conv_input_memory_size", &c.conv_input_memory_size},
                            {"conv_output_memory_size", &c.conv_output_memory_size}}) {
        if (auto v = n.optional_node(key)) {
            const std::vector<sim::ConfigNode> e = v->elements();
            if (e.size() != 3) {
                n.error_at(key, "expected [height, width, channels]");
                continue;
            }
            for (size_t i = 0; i < 3; ++i) {
                (*dst)[i] = e[i].as<uint64_t>();
            }
        }
    }
    c.fc_input_memory_size = n.get<uint64_t>("fc_input_memory_size", c.fc_input_memory_size);
    c.fc_output_memory_size = n.get<uint64_t>("fc_output_memory_size", c.fc_output_memory_size);
    c.axi_data_width_bits = n.get<unsigned>("axi_data_width_bits", c.axi_data_width_bits);
    if (auto d = n.optional_child("ddr")) {
        c.ddr_burst_latency_cycles =
            d->get<unsigned>("burst_latency_cycles", c.ddr_burst_latency_cycles);
        c.ddr_max_burst_beats = d->get<unsigned>("max_burst_beats", c.ddr_max_burst_beats);
    }
    c.x_is_height =
        n.get_enum<bool>("spatial_x", c.x_is_height, {{"height", true}, {"width", false}});
    return c;
}

}  // namespace npu::dlp
