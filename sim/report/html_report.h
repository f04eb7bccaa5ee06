// report.html: one self-contained page (inline CSS and SVG, no script, nothing loaded from
// elsewhere) drawn from a run directory's report.json — and its trace.json when there is one —
// so `npusim report DIR` can draw it again from the files alone. The plots show the numbers of
// report.json; tables under them hold the same numbers. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::report {

// An input or output that is an image, as PNG bytes (embedded in the page as a data: URI).
struct Picture {
    std::string name;  // the file it shows, e.g. "input.npy"
    std::vector<uint8_t> png;
    int width = 0, height = 0;
};

// `trace` may be null. Throws sim::Error naming `source` when the report has nothing to draw.
std::string html_report(const nlohmann::ordered_json& report, const nlohmann::json* trace,
                        const std::string& source, const std::vector<Picture>& pictures = {});

// RFC 4648 base64 of the bytes.
std::string base64(const std::vector<uint8_t>& bytes);

}  // namespace npu::report
