// XML text: escaping for element content and attribute values (JUnit reports). Pure C++.
#pragma once

#include <string>

namespace npu::sim {

// & < > " as entities; everything else as it is.
std::string xml_escape(const std::string& s);

}  // namespace npu::sim
