// The npusim version, for reports and banners (set from the project version by CMake).
#pragma once

namespace npu::sim {

const char* npusim_version();

}  // namespace npu::sim
