#include "sim/report/html_report.h"

#include "sim/core/error.h"
#include "sim/core/run_record.h"
#include "sim/report/record_page.h"

namespace npu::report {

using Json = nlohmann::ordered_json;

std::string base64(const std::vector<uint8_t>& bytes) {
    static const char* const kDigits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string s;
    s.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const uint32_t n = uint32_t{bytes[i]} << 16 |
                           (i + 1 < bytes.size() ? uint32_t{bytes[i + 1]} << 8 : 0u) |
                           (i + 2 < bytes.size() ? uint32_t{bytes[i + 2]} : 0u);
        s += kDigits[n >> 18 & 63];
        s += kDigits[n >> 12 & 63];
        s += i + 1 < bytes.size() ? kDigits[n >> 6 & 63] : '=';
        s += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
    }
    return s;
}

std::string html_report(const Json& report, const nlohmann::json* trace, const std::string& source,
                        const std::vector<Picture>& pictures) {
    if (!sim::is_record_json(report)) {
        throw sim::Error(source + ": not a run record (schema " +
                         std::string(sim::RunRecord::kSchema) +
                         "): draw it with the npusim that wrote it");
    }
    return record_page(sim::record_from_json(report, source), trace, source, pictures);
}

}  // namespace npu::report
