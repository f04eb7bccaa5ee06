// npusim report DIR: draws DIR/report.html again from DIR/report.json (and DIR/trace.json when
// there is one), as `npusim run --out DIR` drew it; for a sweep, from the rows file and the plot
// its record names; for a campaign folder, from DIR/campaign.json.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/report_writer.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/run_record.h"
#include "sim/report/campaign_page.h"
#include "sim/report/estimate_page.h"
#include "sim/report/html_report.h"

namespace npu::app {

namespace {

// A record file of the folder: a regular file (a FIFO or a device would block or never end) of
// at most 256 MiB, read whole.
nlohmann::ordered_json read_json(const std::filesystem::path& p) {
    const std::vector<uint8_t> bytes = sim::read_file(p.string(), uint64_t{256} << 20);
    try {
        return nlohmann::ordered_json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(p.string() + ": not JSON: " + e.what());
    }
}

constexpr uintmax_t kMaxPictureBytes = 64u << 20;

// A regular file of the folder itself (not a link, not a device; `name` may be lcd/NAME with lcd/
// a real folder), at most kMaxPictureBytes.
bool own_file(const std::filesystem::path& dir, const std::string& name) {
    std::error_code ec;
    const size_t slash = name.find('/');
    if (slash != std::string::npos &&
        !std::filesystem::is_directory(
            std::filesystem::symlink_status(dir / name.substr(0, slash), ec))) {
        return false;
    }
    const std::filesystem::path p = dir / name;
    return std::filesystem::is_regular_file(std::filesystem::symlink_status(p, ec)) &&
           std::filesystem::file_size(p, ec) <= kMaxPictureBytes && !ec;
}

// The pictures a page shows: what the run wrote (the folder's output list when it has one, else its
// files), in name order, and its lcd/ folder's frames; each a regular file of the folder — a link
// or a device is never read, so a crafted folder cannot put another file into the page.
std::vector<std::pair<std::string, std::vector<uint8_t>>> picture_files(
    const std::filesystem::path& dir) {
    std::vector<std::string> top, names;
    if (std::filesystem::exists(dir / sim::kOutputList)) {
        top = sim::owned_outputs(dir);
    } else {
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            top.push_back(e.path().filename().string());
        }
    }
    for (const std::string& n : top) {
        if (n != "lcd") {
            names.push_back(n);
            continue;
        }
        std::error_code ec;
        for (std::filesystem::directory_iterator it(dir / "lcd", ec), end; !ec && it != end;
             it.increment(ec)) {
            if (it->path().extension() == ".png") {
                names.push_back("lcd/" + it->path().filename().string());
            }
        }
    }
    std::sort(names.begin(), names.end());
    std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
    for (const std::string& n : names) {
        if (may_be_picture(n) && own_file(dir, n)) {
            files.emplace_back(n, sim::read_file((dir / n).string()));
        }
    }
    return files;
}

// DIR/report.html, whole or not at all.
int write_page(const std::string& dir, const std::string& html) {
    sim::OutputDir out(dir);
    out.write_text("report.html", html);
    commit_and_report(out);
    return kExitOk;
}

}  // namespace

int cmd_report(const ReportOptions& opts) {
    const std::filesystem::path dir(opts.dir);
    if (!std::filesystem::exists(dir / "report.json") &&
        std::filesystem::exists(dir / "campaign.json")) {  // a campaign folder
        const std::string file = (dir / "campaign.json").string();
        std::string html;
        try {  // JSON of another shape: the user's file, not an internal error
            html = report::campaign_html(read_json(file), [&](const std::string& job) {
                return std::filesystem::exists(dir / job / "report.html");
            });
        } catch (const nlohmann::json::exception& e) {
            throw sim::Error(file + ": not a campaign record: " + e.what());
        }
        return write_page(opts.dir, html);
    }
    const nlohmann::ordered_json report = read_json(dir / "report.json");
    if (sim::is_record_json(report)) {
        const sim::RunRecord rec = sim::record_from_json(report, (dir / "report.json").string());
        if (rec.plot && !rec.rows.empty()) {  // a sweep: drawn from its rows file (the reader
            // took only a plain file name for it)
            return write_page(opts.dir, report::sweep_html(read_json(dir / rec.rows), *rec.plot,
                                                           (dir / rec.rows).string()));
        }
    }
    nlohmann::json trace;
    const bool traced = std::filesystem::exists(dir / "trace.json");
    if (traced) {
        trace = read_json(dir / "trace.json");
    }
    std::string html;
    try {  // a record of another shape: the user's file, not an internal error
        html = report::html_report(report, traced ? &trace : nullptr,
                                   (dir / "report.json").string(), pictures_of(picture_files(dir)));
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error((dir / "report.json").string() + ": not a run record: " + e.what());
    }
    return write_page(opts.dir, html);
}

}  // namespace npu::app
