// The float reference evaluator for ONNX graphs: plain, obviously correct loops over our graph IR
// (float32 data, int64 for shapes and indices); speed second. Supported ops and their semantics
// follow the ONNX operator specification (opsets 6..17; 6 for its legacy broadcast attributes);
// docs/onnx.md lists them. Every intermediate can be observed (`on_value`). Pure C++.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "sim/onnx/graph.h"

namespace npu::onnx {

// The ops evaluate() runs.
const std::set<std::string>& supported_ops();

struct EvalOptions {
    // Called with every node output as it is computed (name, value).
    std::function<void(const std::string&, const Value&)> on_value;
};

// Runs the graph on `inputs` (by graph input name); returns the graph outputs by name. Throws
// sim::Error naming the node for an unsupported op, a missing input or a shape it cannot run.
std::map<std::string, Value> evaluate(const Graph& g, const std::map<std::string, Value>& inputs,
                                      const EvalOptions& opts = {});

// The most multiply-adds (or window taps) one node may take: 2^36 by default, about a minute of
// the reference's loops, so a mistaken or hostile model gets an error naming the node instead of
// running for hours. Fuzzers lower it for their thread while a ScopedWorkLimit lives.
uint64_t work_limit();
class ScopedWorkLimit {
public:
    explicit ScopedWorkLimit(uint64_t limit);
    ~ScopedWorkLimit();
    ScopedWorkLimit(const ScopedWorkLimit&) = delete;
    ScopedWorkLimit& operator=(const ScopedWorkLimit&) = delete;

private:
    uint64_t m_saved;
};

}  // namespace npu::onnx
