// The ONNX -> DL processor path as a fuzz entry point: any bytes are imported as an ONNX model
// with the ops the DL processor reads; one with a small image input becomes a network for the
// single and the int8 zcu102 bitstreams (int8 calibrated on two constant samples), is compiled
// and estimated, and its layers run on a constant input. Any input gives a result or one
// sim::Error, never a crash, hang or other exception. Used by libFuzzer (fuzz_dlp_onnx.cpp); the
// normal suite's seeded share is DlpOnnx.MutatedModelsImportOrFailCleanly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/dlp/dlp_chain.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_onnx.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/error.h"
#include "sim/onnx/onnx_import.h"

namespace npu::fuzz {

// Returns 0 refused, 1 imported, 2 ran on both bitstreams.
inline int dlp_onnx_run(const uint8_t* data, size_t size, const dlp::DlpPlatformConfig& single,
                        const dlp::DlpPlatformConfig& int8) {
    onnx::Graph g;
    try {
        onnx::ImportOptions io;
        io.supported_ops = {dlp::dlp_onnx_ops().begin(), dlp::dlp_onnx_ops().end()};
        g = onnx::import_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", io);
    } catch (const sim::Error&) {
        return 0;
    }
    if (g.inputs.size() != 1 || g.inputs[0].shape.size() != 4) {
        return 1;
    }
    for (int64_t d : g.inputs[0].shape) {
        if (d > 64) {  // a bound on the host's work, as the K210 path's
            return 1;
        }
    }
    try {
        for (const dlp::DlpPlatformConfig* cfg : {&single, &int8}) {
            dlp::NetworkFile f = dlp::network_from_onnx(g, "fuzz.onnx", *cfg);
            const dlp::Network& n = f.network;
            const std::vector<float> x(static_cast<size_t>(n.input.z * n.input.h * n.input.w),
                                       0.5f);
            if (cfg == &int8) {
                dlp::quantize_network(f.network, {x, std::vector<float>(x.size(), -0.25f)});
                dlp::run_chain_int8(n, std::vector<int8_t>(x.size(), 3));
            } else {
                dlp::run_chain_single(n, x);
            }
            dlp::estimate(n, dlp::compile(n, cfg->dlp), cfg->dlp, cfg->timing);
        }
    } catch (const sim::Error&) {
        return 1;
    }
    return 2;
}

}  // namespace npu::fuzz
