#include "platforms/common/platform_face.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::platform {

std::string Platform::describe_program(const std::string& path) const {
    throw sim::Error(
        fmt::format("{}: platform kind {} reads no program files ({})", m_source, m_kind, path));
}

EstimateReport Platform::estimate(const EstimateRequest& /*request*/) const {
    throw sim::Error(
        fmt::format("{}: estimate needs a platform with a model of compute (kind {} "
                    "has none)",
                    m_source, m_kind));
}

CompileReport Platform::compile(const CompileRequest& /*request*/) const {
    throw sim::Error(fmt::format("platform kind {} has no compiler", m_kind));
}

RunReport Platform::calibrate(const CalibrateRequest& /*request*/) const {
    throw sim::Error(
        fmt::format("{}: platform kind {} has no time model to calibrate", m_source, m_kind));
}

RunReport verdict_report(sim::RunRecord verdict, std::string text) {
    RunReport r;
    r.text = std::move(text);
    r.passed = verdict.passed();
    r.files_after.push_back({"report.txt", {r.text.begin(), r.text.end()}});
    r.record = std::move(verdict);
    return r;
}

RunReport Platform::regress(const RegressRequest& /*request*/) const {
    throw sim::Error(
        fmt::format("{}: platform kind {} has no compiler to regress against", m_source, m_kind));
}

}  // namespace npu::platform
