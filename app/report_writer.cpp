#include "app/report_writer.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/app.h"
#include "sim/core/error.h"
#include "sim/core/image.h"
#include "sim/core/json_text.h"
#include "sim/core/npy.h"
#include "sim/core/version.h"
#include "sim/report/estimate_page.h"
#include "sim/report/html_report.h"

namespace npu::app {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool may_be_picture_npy(const std::string& name) {
    return name == "input.npy" || (name.rfind("output_", 0) == 0 && ends_with(name, ".npy"));
}

// A picture of an image-shaped tensor; nothing (false) for any other.
bool tensor_picture(const sim::Tensor& t, report::Picture& p) {
    const sim::Shape& s = t.shape();
    int64_t c = 1, h = 0, w = 0;
    if (s.size() == 4 && s[0] == 1) {
        c = s[1], h = s[2], w = s[3];
    } else if (s.size() == 3) {
        c = s[0], h = s[1], w = s[2];
    } else if (s.size() == 2) {
        h = s[0], w = s[1];
    }
    if ((c != 1 && c != 3) || h < 4 || w < 4 || h * w > 2048 * 2048) {
        return false;
    }
    std::vector<uint8_t> planes(t.numel());
    double lo = 0, hi = 255;
    if (t.dtype() != sim::DType::u8) {
        lo = hi = t.numel() > 0 ? t.get_f64(0) : 0;
        for (size_t i = 0; i < t.numel(); ++i) {
            lo = std::min(lo, t.get_f64(i)), hi = std::max(hi, t.get_f64(i));
        }
    }
    for (size_t i = 0; i < t.numel(); ++i) {
        const double v = hi > lo ? (t.get_f64(i) - lo) * 255.0 / (hi - lo) : 0.0;
        planes[i] = static_cast<uint8_t>(std::clamp(v + 0.5, 0.0, 255.0));
    }
    p.png = sim::encode_png(planes.data(), static_cast<int>(c), static_cast<int>(h),
                            static_cast<int>(w));
    p.width = static_cast<int>(w), p.height = static_cast<int>(h);
    return true;
}

nlohmann::ordered_json parse_rows(const platform::OutputFile& f) {
    return nlohmann::ordered_json::parse(f.bytes.begin(), f.bytes.end());
}

}  // namespace

bool may_be_picture(const std::string& name) {
    return ends_with(name, ".png") || may_be_picture_npy(name);
}

std::vector<report::Picture> pictures_of(
    const std::vector<std::pair<std::string, std::vector<uint8_t>>>& files) {
    // A tensor the run also wrote as PNG (input.npy and input.png, output_1.npy and
    // output_1_edges_pooled.png) is shown once, as its PNG: left out before it is decoded.
    auto shown_as_png = [&](const std::string& npy) {
        const std::string stem = npy.substr(0, npy.size() - 4);
        return std::any_of(files.begin(), files.end(), [&](const auto& f) {
            return ends_with(f.first, ".png") && f.first.rfind(stem, 0) == 0;
        });
    };
    std::vector<report::Picture> out;
    for (const auto& [name, bytes] : files) {
        report::Picture p{name, {}, 0, 0};
        static constexpr uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                           0,    0,   0,   13,  'I',  'H',  'D',  'R'};
        if (ends_with(name, ".png") && bytes.size() >= 24 &&
            std::equal(std::begin(kPng), std::end(kPng), bytes.begin())) {  // a PNG's IHDR:
            // width, height, big-endian; a file that is not a PNG is never embedded
            auto be32 = [&](size_t at) {
                return static_cast<int>(uint32_t{bytes[at]} << 24 | uint32_t{bytes[at + 1]} << 16 |
                                        uint32_t{bytes[at + 2]} << 8 | uint32_t{bytes[at + 3]});
            };
            p.png = bytes, p.width = be32(16), p.height = be32(20);
            out.push_back(std::move(p));
        } else if (may_be_picture_npy(name) && !shown_as_png(name)) {
            try {
                if (tensor_picture(sim::parse_npy(bytes.data(), bytes.size(), name), p)) {
                    out.push_back(std::move(p));
                }
            } catch (const sim::Error&) {
                // not a .npy we can read: no picture of it
            }
        }
    }
    // By name: the same page from a run and from its directory (npusim report).
    std::sort(out.begin(), out.end(),
              [](const report::Picture& a, const report::Picture& b) { return a.name < b.name; });
    return out;
}

int finish_run(const std::string& command, const platform::RunReport& report, sim::OutputDir* out,
               const sim::TraceWriter* trace) {
    if (!report.error.empty()) {
        error_line(report.error);
        return kExitUsage;
    }
    write_run_report(command, report, out, trace);
    return report.passed ? kExitOk : kExitCheckFailed;
}

void write_run_report(const std::string& command, const platform::RunReport& report,
                      sim::OutputDir* out, const sim::TraceWriter* trace) {
    std::fwrite(report.text.data(), 1, report.text.size(), stdout);
    if (out == nullptr) {
        return;
    }
    for (const platform::OutputFile& f : report.files) {
        out->write_bytes(f.name, f.bytes);
    }
    if (!report.record) {  // every platform fills one; without, only its files are written
        commit_and_report(*out);
        return;
    }
    sim::RunRecord rec = *report.record;
    rec.command = command;
    const nlohmann::ordered_json j = sim::to_json(rec);
    out->write_text("report.json", sim::json_text(j, 2) + "\n");
    for (const platform::OutputFile& f : report.files_after) {
        out->write_bytes(f.name, f.bytes);
    }
    if (!rec.layers.empty()) {
        out->write_text("layers.csv", sim::layers_csv(rec));
    }
    if (!rec.checks.empty()) {  // CI reads its checks as tests
        out->write_text("junit.xml", sim::junit_xml(rec));
    }
    const bool traced = trace != nullptr && trace->enabled();
    const nlohmann::json trace_json = traced ? nlohmann::json(trace->to_json()) : nlohmann::json();
    if (traced) {
        out->write_text("trace.json", trace->dump() + "\n");
    }
    if (!rec.checks.empty() || !rec.layers.empty()) {
        std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
        for (const auto* list : {&report.files, &report.files_after}) {
            for (const platform::OutputFile& f : *list) {
                if (may_be_picture(f.name)) {  // copy no other file's bytes
                    files.emplace_back(f.name, f.bytes);
                }
            }
        }
        out->write_text("report.html", report::html_report(j, traced ? &trace_json : nullptr,
                                                           "report.json", pictures_of(files)));
    }
    commit_and_report(*out);
}

void write_estimate_report(sim::OutputDir& out, const platform::EstimateReport& report) {
    // The rows file: the one the record names, else estimate.json.
    const std::string rows_name = report.record && !report.record->rows.empty()
                                      ? report.record->rows
                                      : std::string("estimate.json");
    const platform::OutputFile* rows = nullptr;
    for (const platform::OutputFile& f : report.files) {
        out.write_bytes(f.name, f.bytes);
        rows = f.name == rows_name ? &f : rows;
    }
    if (report.record) {  // a program's estimate is drawn like a run, a sweep from its rows
        sim::RunRecord rec = *report.record;
        rec.command = "estimate";
        rec.rows = rows != nullptr ? rows->name : "";
        const nlohmann::ordered_json j = sim::to_json(rec);
        out.write_text("report.json", sim::json_text(j, 2) + "\n");
        if (rec.plot && rows != nullptr) {
            out.write_text("report.html",
                           report::sweep_html(parse_rows(*rows), *rec.plot, rows->name));
        } else if (!rec.layers.empty()) {
            out.write_text("layers.csv", sim::layers_csv(rec));
            out.write_text("report.html", report::html_report(j, nullptr, "report.json", {}));
        }
    }
    commit_and_report(out);
}

void commit_and_report(sim::OutputDir& out) {
    out.commit();
    // One name per file, except the per-layer dumps, which are counted (there may be hundreds).
    std::vector<std::string> names;
    size_t layer_files = 0;
    for (const std::string& f : out.files()) {
        if (f.rfind("layer_", 0) == 0 && f.size() > 4 && f.substr(f.size() - 4) == ".npy") {
            if (layer_files++ == 0) {
                names.emplace_back();  // its place in the list
            }
            continue;
        }
        names.push_back(f);
    }
    for (std::string& n : names) {
        if (n.empty()) {
            n = fmt::format("{} layer dumps (layer_*.npy)", layer_files);
        }
    }
    fmt::print("wrote {} to {}\n", fmt::join(names, ", "), out.dir().string());
}

}  // namespace npu::app
