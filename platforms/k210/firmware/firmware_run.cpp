#include "platforms/k210/firmware/firmware_run.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "models/rv64/elf.h"
#include "platforms/k210/firmware/firmware_soc.h"
#include "platforms/k210/firmware/frame_report.h"
#include "platforms/k210/firmware/gdb_link.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/core/run_record.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

// The KPU layers the firmware ran, as the record's layers: the KPU's time split by its parts
// (docs/k210_kpu.md), a skipped layer as a measure.
std::vector<sim::LayerRecord> kpu_layer_records(const std::vector<kpu::LayerRecord>& layers,
                                                double kpu_hz, uint64_t& cycles) {
    std::vector<sim::LayerRecord> out;
    for (const kpu::LayerRecord& l : layers) {
        const kpu::LayerCost& c = l.cost;
        cycles += c.total_cycles;
        sim::LayerRecord r;
        r.index = l.index;
        r.op = "KPU layer";
        r.shape = kpu::shape_summary(l.args);
        r.macs = c.macs;
        r.param_bytes = c.weight_bytes + c.param_bytes;
        r.start_ps = l.start_ps, r.end_ps = l.end_ps;
        r.engines.push_back({"KPU", l.end_ps - l.start_ps, "kpu", kpu_hz, {}});
        for (const auto& [name, n] : c.parts()) {
            r.engines.back().parts.push_back({name, n});
        }
        r.measures = {{"kpu_cycles", static_cast<double>(c.total_cycles), "cycles"},
                      {"skipped", l.skipped ? 1.0 : 0.0, ""}};
        out.push_back(std::move(r));
    }
    return out;
}

nlohmann::ordered_json devices_json(const std::vector<HartDevice>& devices) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const HartDevice& d : devices) {
        if (d.reads + d.writes > 0) {
            out.push_back({{"device", d.name}, {"reads", d.reads}, {"writes", d.writes}});
        }
    }
    return out;
}

// Why the run failed, or "" when the firmware exited with 0 (on either hart: the first end of a
// hart ends the run).
std::string failure(const FirmwareSoc& soc, const std::string& file) {
    if (soc.frames_done()) {
        return "";  // --max-frames: the frames asked for were drawn
    }
    if (!soc.chip_reset().empty()) {
        const uint64_t pc = soc.hart.pc();
        return fmt::format("firmware {}: {} (hart 0 at pc {:#x} ({}), after {} instructions)", file,
                           soc.chip_reset(), pc, soc.hart.describe(pc),
                           soc.hart.result().instructions);
    }
    for (const K210Hart* k : {&soc.hart, &soc.hart1}) {
        if (!k->result().error.empty()) {
            return k->result().error;
        }
    }
    const HartResult& h = soc.hart1.result().exited ? soc.hart1.result() : soc.hart.result();
    if (!h.exited && soc.hart.running()) {
        const uint64_t pc = soc.hart.pc();
        return fmt::format(
            "firmware {}: waits for an interrupt (wfi) at pc {:#x} ({}) that nothing left in the "
            "simulation can raise, after {} instructions",
            file, pc, soc.hart.describe(pc), h.instructions);
    }
    if (h.exit_code != 0) {
        return fmt::format("firmware {}: exited with {}", file, h.exit_code);
    }
    return "";
}

// --uart-input [uartN=]FILE: the port (1-3; 3, the SDK's console, by default) and the bytes.
std::pair<unsigned, std::vector<uint8_t>> uart_input(const std::string& spec) {
    unsigned port = 3;
    std::string path = spec;
    if (spec.size() > 6 && spec.compare(0, 4, "uart") == 0 && spec[5] == '=') {
        if (spec[4] < '1' || spec[4] > '3') {
            throw sim::Error(fmt::format(
                "--uart-input {}: the K210's UARTs with receivers are uart1, uart2, uart3", spec));
        }
        port = static_cast<unsigned>(spec[4] - '0');
        path = spec.substr(6);
    }
    constexpr uint64_t kMaxBytes = 16 << 20;  // 16 MiB: half an hour of input at 115200 baud
    try {
        return {port, sim::read_file(path, kMaxBytes)};
    } catch (const sim::Error& e) {
        throw sim::Error(fmt::format("--uart-input {}", e.what()));
    }
}

// --flash FILE[@OFFSET]: the file and where it starts in the flash.
std::pair<std::string, uint32_t> flash_input(const std::string& spec) {
    const size_t at = spec.rfind('@');
    if (at == std::string::npos) {
        return {spec, 0};
    }
    const std::string off = spec.substr(at + 1);
    std::string why;
    const std::optional<uint64_t> v = sim::parse_u64(off, why);  // 0100 is one hundred, not octal
    if (!v || *v >= flash::W25q::kBytes) {
        throw sim::Error(fmt::format(
            "--flash {}: the offset '{}' is not a number below 16 MiB (decimal, 0x hex or 0b "
            "binary)",
            spec, off));
    }
    return {spec.substr(0, at), static_cast<uint32_t>(*v)};
}

// --pin-input FILE: levels applied to the pads over time (models/k210_soc/pin_script.h).
std::vector<soc::PinEvent> pin_input(const std::string& path) {
    constexpr uint64_t kMaxBytes = 16 << 20;
    try {
        return soc::parse_pin_script(sim::read_text_file(path, kMaxBytes), path);
    } catch (const sim::Error& e) {
        throw sim::Error(fmt::format("--pin-input {}", e.what()));
    }
}

// The harts' options from the request; both cores leave reset at the entry on a K210 (the SDK's
// crt.S parks core 1 by mhartid): a firmware that never reads mhartid cannot tell them apart, so
// hart 1 stays in reset. Returns whether hart 1 runs.
bool load_harts(FirmwareSoc& soc, const K210Config& cfg, const rv64::ElfImage& elf,
                const platform::RunRequest& request, const HartOptions& base) {
    HartOptions o = base;
    o.args = request.firmware_args;
    o.args.insert(o.args.begin(), request.firmware);
    o.clock_hz = soc.clocks()[soc::Clock::kCpu];  // SYSCTL's (the platform's is for --model)
    o.cpi = cfg.cpi;
    o.uncached_load_cycles = cfg.uncached_load_cycles;
    o.uncached_store_cycles = cfg.uncached_store_cycles;
    // The default budget catches a runaway firmware; a run the user ends by time or frames has
    // none.
    const bool ended = request.max_time_ps != 0 || !request.option("max-frames").empty();
    o.max_instructions =
        request.max_instructions_given || !ended ? request.max_instructions : uint64_t{1} << 62;
    o.max_time_ps = request.max_time_ps;
    o.read_root = request.semihost_read_root;
    o.write_root = request.semihost_write_root;
    o.files_hint = request.semihost_hint;
    o.unmodelled = [&map = cfg.devices](uint64_t addr) {
        return map.unmodelled(addr);
    };
    HartOptions o1 = o;
    o1.gdb = nullptr;  // the debugger sees hart 0
    soc.hart.load(elf, std::move(o));
    const bool two_harts = soc.hart.hartid_reads() > 0;
    if (two_harts) {
        soc.hart1.load(elf, std::move(o1));
    }
    return two_harts;
}

// What the run says on stdout: the harts, interrupts, KPU, time, warnings and failure.
std::string run_text(const FirmwareSoc& soc, const K210Config& cfg, const std::string& source,
                     const std::string& file, bool two_harts, uint64_t kpu_cycles, uint64_t end_ps,
                     const std::string& why) {
    const HartResult& h = soc.hart.result();
    std::string text = fmt::format(
        "firmware {} on {} ({}): {}\n"
        "  {} instructions, {} CPU cycles; asleep (wfi) {:.3f} us; busy-waits waited "
        "out {:.3f} us\n"
        "  interrupts taken: {} external, {} timer, {} software; KPU {} layers, {} cycles\n"
        "  simulated time {:.3f} us\n",
        file, cfg.platform.name, source,
        h.exited ? fmt::format("exited with {}", h.exit_code) : "did not exit", h.instructions,
        h.cpu_cycles, static_cast<double>(h.sleep_ps) / 1e6, static_cast<double>(h.spin_ps) / 1e6,
        h.irq_external, h.irq_timer, h.irq_software, soc.k210.kpu.layers().size(), kpu_cycles,
        static_cast<double>(end_ps) / 1e6);
    text += "  clocks at the end (SYSCTL; changes in clocks.txt):";
    for (unsigned c = 0; c < soc::kClockCount; ++c) {
        const double hz = soc.clocks().hz[c];
        text +=
            fmt::format("{} {} {}", c == 0 ? "" : ",", soc::clock_name(static_cast<soc::Clock>(c)),
                        hz > 0 ? fmt::format("{:.6g} MHz", hz / 1e6) : std::string("off"));
    }
    text += "\n";
    const HartResult& h1 = soc.hart1.result();
    text += two_harts ? fmt::format(
                            "  hart 1: {} instructions, {} CPU cycles; asleep (wfi) "
                            "{:.3f} us{}\n",
                            h1.instructions, h1.cpu_cycles, static_cast<double>(h1.sleep_ps) / 1e6,
                            h1.budget_spent ? "; stopped at its budget" : "")
                      : "  hart 1: held in reset (the firmware never reads mhartid)\n";
    for (const std::string& w : soc.warnings()) {
        text += "  warning: " + w + "\n";
    }
    return why.empty() ? text : text + why + "\n";
}

// The run's files (console, each UART, pins, PWM) into `rep`; their names by kind.
nlohmann::ordered_json output_files(const FirmwareSoc& soc, const std::string& console,
                                    platform::RunReport& rep) {
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    auto add = [&](const std::string& kind, const std::string& name, const std::string& text) {
        rep.files.push_back({name, {text.begin(), text.end()}});
        files[kind] = name;
    };
    if (!console.empty()) {
        add("console", "console.txt", console);
    }
    for (const auto& [port, text] : soc.uart_output()) {
        add(port, port + ".txt", text);
    }
    add("clocks", "clocks.txt", soc.clock_log());
    const std::pair<const char*, std::string> logs[] = {{"pins", soc.pin_log()},
                                                        {"pwm", soc.pwm_log()}};
    for (const auto& [kind, text] : logs) {
        if (!text.empty()) {
            add(kind, std::string(kind) + ".txt", text);
            rep.text += fmt::format("  {} changes: {} ({}.txt)\n",
                                    std::string(kind) == "pins" ? "GPIO pin" : "PWM",
                                    std::count(text.begin(), text.end(), '\n'), kind);
        }
    }
    return files;
}

std::vector<sim::Quantity> totals_of(const FirmwareSoc& soc, uint64_t kpu_cycles, uint64_t end_ps) {
    const HartResult& h = soc.hart.result();
    const auto q = [](const char* name, uint64_t v, const char* unit) {
        return sim::Quantity{name, static_cast<double>(v), unit};
    };
    return {q("instructions", h.instructions, "instructions"),
            q("cpu_cycles", h.cpu_cycles, "cycles"),
            {"cpu_clock_hz", soc.clocks()[soc::Clock::kCpu], "Hz"},  // at the end
            q("sleep_ps", h.sleep_ps, "ps"),
            q("busy_wait_ps", h.spin_ps, "ps"),
            q("busy_waits", h.spins, "loops"),
            q("wfi", h.wfi_count, "instructions"),
            q("irq_external", h.irq_external, "interrupts"),
            q("irq_timer", h.irq_timer, "interrupts"),
            q("irq_software", h.irq_software, "interrupts"),
            q("plic_claims", soc.plic.claims(), "claims"),
            q("uncached_accesses", h.uncached_accesses, "accesses"),
            q("kpu_layers", soc.k210.kpu.layers().size(), "layers"),
            q("kpu_cycles", kpu_cycles, "cycles"),
            q("end_ps", end_ps, "ps")};
}

// The clocks at the end, as the platform's parameters: <name>_clock_hz (0: stopped).
std::vector<sim::Quantity> clock_parameters(const soc::Clocks& clocks) {
    std::vector<sim::Quantity> out;
    for (unsigned c = 0; c < soc::kClockCount; ++c) {
        out.push_back({std::string(soc::clock_name(static_cast<soc::Clock>(c))) + "_clock_hz",
                       clocks.hz[c], "Hz"});
    }
    return out;
}

nlohmann::ordered_json hart1_json(const FirmwareSoc& soc, bool two_harts) {
    const HartResult& h1 = soc.hart1.result();
    if (!two_harts) {
        return "held in reset";
    }
    return {{"instructions", h1.instructions},
            {"cpu_cycles", h1.cpu_cycles},
            {"sleep_ps", h1.sleep_ps},
            {"exited", h1.exited},
            {"budget_spent", h1.budget_spent}};
}

// What only the firmware run reports (the record's extra).
nlohmann::ordered_json extra_json(const FirmwareSoc& soc, const platform::RunRequest& request,
                                  const std::string& why, bool two_harts,
                                  const nlohmann::ordered_json& files) {
    const HartResult& h = soc.hart.result();
    return {{"args", request.firmware_args},
            {"exited", h.exited},
            {"exit_code", h.exit_code},
            {"failure", why},
            {"warnings", soc.warnings()},
            {"hart1", hart1_json(soc, two_harts)},
            {"devices", devices_json(soc.hart.devices())},
            {"files", files},
            {"semihosting_unsupported", h.unsupported},
            {"semihosting_refused", h.refused}};
}

// The GDB link, connected, when the request asks for one.
std::unique_ptr<GdbLink> connect_gdb(int port) {
    if (port == 0) {
        return nullptr;
    }
    auto gdb = std::make_unique<GdbLink>(port);
    std::fprintf(stderr, "npusim: waiting for GDB on 127.0.0.1:%d (target remote :%d)\n", port,
                 port);
    gdb->accept();
    return gdb;
}

// --lcd-every N, --max-frames N: a whole number from 1 (0 when not given).
size_t frame_count(const platform::RunRequest& request, const char* option) {
    const std::string v = request.option(option);
    if (v.empty()) {
        return 0;
    }
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (!std::isdigit(static_cast<unsigned char>(v[0])) || *end != '\0' || errno != 0 || n == 0 ||
        n > 1'000'000'000) {
        throw sim::Error(fmt::format("--{}: a whole number of frames from 1, got '{}'", option, v));
    }
    return static_cast<size_t>(n);
}

// What the chip's outside world gives the firmware (the platform options): UART input, pad
// levels, the flash's contents, the scene in front of the camera; and which LCD frames to keep.
void apply_inputs(FirmwareSoc& soc, const platform::RunRequest& request) {
    soc.set_frame_options(std::max<size_t>(1, frame_count(request, "lcd-every")),
                          frame_count(request, "max-frames"));
    if (const std::string spec = request.option("uart-input"); !spec.empty()) {
        const auto [port, bytes] = uart_input(spec);
        soc.set_uart_input(port, bytes);
    }
    if (const std::string path = request.option("pin-input"); !path.empty()) {
        soc.set_pin_input(pin_input(path));
    }
    if (const std::string spec = request.option("flash"); !spec.empty()) {
        const auto [path, offset] = flash_input(spec);
        soc.load_flash(path, offset);
    }
    if (const std::string path = request.option("camera"); !path.empty()) {
        soc.set_scene(std::make_unique<camera::FrameSource>(path));
    }
}

}  // namespace

platform::RunReport run_firmware(const K210Config& cfg, const std::string& source,
                                 const platform::RunRequest& request) {
    const rv64::ElfImage elf = rv64::load_elf(request.firmware);
    sim::Session session({request.trace, request.verbose});
    sim::TraceWriter& trace = session.trace();
    std::string console;
    HartOptions base;
    base.output = [&](const std::string& from, const std::string& text) {
        if (from == "console") {
            console += text;
        }
        if (request.firmware_output) {
            request.firmware_output(from, text);
        }
    };
    const std::unique_ptr<GdbLink> gdb = connect_gdb(request.gdb_port);
    base.gdb = gdb.get();
    FirmwareSoc soc("soc", cfg, trace, base.output);
    apply_inputs(soc, request);
    const bool two_harts = load_harts(soc, cfg, elf, request, base);
    const uint64_t end_ps = session.run();
    soc.finish_uarts();
    const HartResult& h = soc.hart.result();
    uint64_t kpu_cycles = 0;
    sim::RunRecord rec;
    rec.layers =
        kpu_layer_records(soc.k210.kpu.layers(), soc.clocks()[soc::Clock::kAi], kpu_cycles);
    platform::RunReport rep;
    const std::string why = failure(soc, request.firmware);
    rep.passed = why.empty();
    rep.text = run_text(soc, cfg, source, request.firmware, two_harts, kpu_cycles, end_ps, why);
    nlohmann::ordered_json files = output_files(soc, console, rep);
    nlohmann::ordered_json frames = add_frames(soc, rep, files);
    trace_frames(soc, trace);
    rec.command = "run";
    rec.mode = "firmware";
    rec.platform = {"k210", cfg.platform.name, source, clock_parameters(soc.clocks())};
    rec.program = {request.firmware, "ELF (RV64)", {}};
    rec.totals = totals_of(soc, kpu_cycles, end_ps);
    // The run passes when the firmware exits with 0 on either hart, without a fault or a spent
    // budget (`failure` says which).
    rec.checks.push_back({"firmware exit code", static_cast<double>(h.exit_code), "<=", 0, "",
                          rep.passed, std::nullopt, ""});
    rec.extra = extra_json(soc, request, why, two_harts, files);
    rec.extra["frames"] = std::move(frames);
    rec.stats = soc.k210.stats().to_json();
    rep.record = std::move(rec);
    return rep;
}

}  // namespace npu::k210
