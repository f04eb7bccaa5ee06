// What the DL processor's tests share: a platform read from configs/ (dlp_zcu102_single.yaml,
// ...), and the one error an ONNX model's import gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/dlp/dlp_job.h"
#include "platforms/dlp/dlp_onnx.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/onnx/onnx_import.h"

namespace npu::test {

inline dlp::DlpPlatformConfig platform(const std::string& file) {
    auto doc = sim::ConfigDocument::load_file(std::string(NPUSIM_SOURCE_DIR "/configs/") + file);
    dlp::DlpPlatformConfig c = dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

// The message importing ONNX model `bytes` for the platform of `config` gives, or "no error".
inline std::string onnx_error_of(const std::vector<uint8_t>& bytes,
                                 const char* config = "dlp_zcu102_single.yaml") {
    try {
        dlp::network_from_onnx(onnx::import_model_bytes(bytes, "m.onnx"), "m.onnx",
                               platform(config));
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace npu::test
