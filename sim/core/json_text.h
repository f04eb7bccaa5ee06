// JSON text for files and messages. Names reach our records from files we do not trust (ONNX
// node and tensor names, YAML keys, kmodel strings); nlohmann's dump() throws on a string that
// is not valid UTF-8, which would end a run with an internal error. Here each invalid byte
// becomes U+FFFD instead, so a record is written whole and a message still names the thing.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu::sim {

// j.dump(indent) that never throws on invalid UTF-8 (indent -1: one line). A template so that
// an ordered_json keeps its keys' order (a conversion to json would sort them).
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace npu::sim
