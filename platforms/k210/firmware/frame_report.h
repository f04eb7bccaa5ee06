// What a firmware run's screen and camera showed (docs/k210_camera.md, "Frames in the report"):
// the LCD's frames as lcd/NNNN.png with lcd/frames.txt, the camera's as camera/frames.txt, and
// the frame time — the simulated time between LCD frames with the camera's, the KPU's and the
// LCD's busy shares of it — in the run's text and its report.json (extra.frames).
#pragma once

#include <nlohmann/json.hpp>

#include "platforms/common/platform_face.h"
#include "platforms/k210/firmware/firmware_soc.h"
#include "sim/core/trace.h"

namespace npu::k210 {

// Adds the files and the text lines to `rep`, the file names to `files`; returns extra.frames.
nlohmann::ordered_json add_frames(const FirmwareSoc& soc, platform::RunReport& rep,
                                  nlohmann::ordered_json& files);
// The frames in the trace (--trace): a "camera" track (each frame from VSYNC: captured to its
// last line, skipped as an instant) and an "lcd" track (each frame's first to last pixel), beside
// the harts' and the KPU's (whose layers show each inference).
void trace_frames(const FirmwareSoc& soc, sim::TraceWriter& trace);

}  // namespace npu::k210
