#include "platforms/finn/finn_import.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"
#include "sim/onnx/onnx_import.h"

namespace npu::finn {

std::string base_op(const std::string& op) {
    std::string s = op;
    for (const char* suffix : {"_hls", "_rtl", "_Batch"}) {
        const std::string x = suffix;
        if (s.size() > x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0) {
            s.resize(s.size() - x.size());
        }
    }
    if (s == "MatrixVectorActivation" || s == "StreamingFCLayer") {
        return "MVAU";
    }
    if (s == "VectorVectorActivation") {
        return "VVAU";
    }
    return s;
}

namespace {

bool is_dataflow(const onnx::Node& n) {
    return n.domain.rfind("finn.custom_op.fpgadataflow", 0) == 0;
}

// One node's attributes and initializers, every problem named "<file>: node '<name>' (<op>)".
class NodeReader {
public:
    NodeReader(const onnx::Graph& g, const onnx::Node& n, const std::string& source)
        : m_graph(g)
        , m_node(n)
        , m_where(fmt::format("{}: node '{}' ({})", source, n.name, n.op_type)) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw sim::Error(m_where + ": " + what);
    }
    // A rule of the layer broken: the node and the rule, and which of its values a folding
    // config gave ("(PE, SIMD from folding.json: MVAU_hls_0)").
    [[noreturn]] void fail_rule(const std::string& what) const {
        std::string from, origin;
        for (const auto& [name, a] : m_node.attributes) {
            if (!a.origin.empty()) {
                from += (from.empty() ? "" : ", ") + name;
                origin = a.origin;
            }
        }
        fail(from.empty() ? what : fmt::format("{} ({} from {})", what, from, origin));
    }
    // A problem with attribute `a`: named at the file that gave its value (a folding config) when
    // that is not the model.
    [[noreturn]] void fail_attribute(const std::string& a, const std::string& what) const {
        const auto it = m_node.attributes.find(a);
        if (it != m_node.attributes.end() && !it->second.origin.empty()) {
            throw sim::Error(fmt::format("{}: {} (node '{}', {})", it->second.origin, what,
                                         m_node.name, m_node.op_type));
        }
        fail(what);
    }
    const std::string& where() const { return m_where; }
    const onnx::Node& node() const { return m_node; }

    // An integer attribute; `fallback` < 0: it must be there. At least `min`.
    uint64_t integer(const std::string& a, int64_t fallback = -1, int64_t min = 1) const {
        if (!m_node.has(a) && fallback < 0) {
            fail(fmt::format("attribute {} is missing", a));
        }
        expect_kind(a, onnx::Attribute::Kind::i, "an integer");
        const int64_t v = m_node.has(a) ? m_node.attributes.at(a).i : fallback;
        if (v < min || v > (int64_t{1} << 32)) {
            fail_attribute(a, fmt::format("attribute {} is {}, expected {}..2^32", a, v, min));
        }
        return static_cast<uint64_t>(v);
    }
    // A list of `n` positive integers ([h, w], ...); `fallback` empty: it must be there.
    std::vector<uint64_t> integers(const std::string& a, size_t n,
                                   std::vector<int64_t> fallback = {}) const {
        expect_kind(a, onnx::Attribute::Kind::is, "a list of integers");
        const std::vector<int64_t> v = m_node.has(a) ? m_node.get_ints(a) : fallback;
        if (v.empty()) {
            fail(fmt::format("attribute {} is missing (expected {} integers)", a, n));
        }
        if (n != 0 && v.size() != n) {
            fail_attribute(a,
                           fmt::format("attribute {} has {} values, expected {}", a, v.size(), n));
        }
        std::vector<uint64_t> out;
        for (int64_t x : v) {
            if (x < 1 || x > (int64_t{1} << 32)) {
                fail_attribute(
                    a, fmt::format("attribute {} holds {}, expected positive integers", a, x));
            }
            out.push_back(static_cast<uint64_t>(x));
        }
        return out;
    }
    int64_t signed_integer(const std::string& a, int64_t fallback) const {
        expect_kind(a, onnx::Attribute::Kind::i, "an integer");
        return m_node.get_int(a, fallback);
    }
    // A data type attribute (FINN names some of them either way: dataType or inputDataType).
    DataType type(const std::string& a) const {
        expect_kind(a, onnx::Attribute::Kind::s, "a data type name");
        const std::string alt = a == "dataType" ? "inputDataType" : "dataType";
        std::string name = m_node.get_string(a, "");
        if (name.empty() && (a == "dataType" || a == "inputDataType")) {
            name = m_node.get_string(alt, "");
        }
        if (name.empty()) {
            fail(fmt::format("attribute {} is missing", a));
        }
        try {
            return DataType::parse(name);
        } catch (const sim::Error& e) {
            fail_attribute(a, fmt::format("attribute {}: {}", a, e.what()));
        }
    }
    // Initializer input `i` as integers, with its shape; `what` names it in messages. Values are
    // multiplied by `scale` first (2^fraction bits, for fixed-point operands).
    std::vector<int64_t> initializer(size_t i, const char* what, std::vector<int64_t>& shape,
                                     double scale = 1) const {
        if (i >= m_node.inputs.size() || m_graph.initializers.count(m_node.inputs[i]) == 0) {
            fail(fmt::format("input {} ({}) must be an initializer", i, what));
        }
        const onnx::Value& v = m_graph.initializers.at(m_node.inputs[i]);
        shape = v.shape;
        const size_t n = v.is_int() ? v.i.size() : v.f.size();
        std::vector<int64_t> out;
        out.reserve(n);
        for (size_t k = 0; k < n; ++k) {
            const double x = v.is_int() ? static_cast<double>(v.i[k]) : static_cast<double>(v.f[k]);
            const double f = x * scale;
            if (!std::isfinite(f) || f != std::nearbyint(f) || std::fabs(f) > 9e15) {
                fail(fmt::format(
                    "{} value {} is {}: not {} (npusim runs integer and fixed-point "
                    "weights and thresholds)",
                    what, k, v.is_int() ? fmt::format("{}", v.i[k]) : fmt::format("{}", v.f[k]),
                    scale == 1 ? std::string("an integer")
                               : fmt::format("a multiple of 2^-{}", std::log2(scale))));
            }
            out.push_back(static_cast<int64_t>(f));
        }
        return out;
    }

private:
    // An attribute that is there must be of `kind` (`what` names it in the message).
    void expect_kind(const std::string& a, onnx::Attribute::Kind kind, const char* what) const {
        if (m_node.has(a) && m_node.attributes.at(a).kind != kind) {
            fail_attribute(a, fmt::format("attribute {} must be {}", a, what));
        }
    }

    const onnx::Graph& m_graph;
    const onnx::Node& m_node;
    std::string m_where;
};

std::string shape_text(const std::vector<int64_t>& s) {
    return fmt::format("[{}]", fmt::join(s, ", "));
}

// Thresholds [rows, steps] (rows = `channels` or 1) from initializer input `i`, on the raw scale
// of a value with `frac` fraction bits.
Thresholds thresholds(const NodeReader& r, size_t i, uint64_t channels, unsigned frac = 0) {
    std::vector<int64_t> shape;
    const std::vector<int64_t> t =
        r.initializer(i, "thresholds", shape, std::ldexp(1.0, static_cast<int>(frac)));
    if (shape.size() != 2 || (shape[0] != 1 && static_cast<uint64_t>(shape[0]) != channels)) {
        r.fail(fmt::format("thresholds have shape {}, expected [{} or 1, steps]", shape_text(shape),
                           channels));
    }
    Thresholds rows(static_cast<size_t>(shape[0]));
    const auto steps = static_cast<size_t>(shape[1]);
    for (size_t c = 0; c < rows.size(); ++c) {
        rows[c].assign(t.begin() + static_cast<long>(c * steps),
                       t.begin() + static_cast<long>((c + 1) * steps));
    }
    return rows;
}

uint64_t product(const std::vector<uint64_t>& v) {
    uint64_t p = 1;
    for (uint64_t x : v) {
        p *= x;
    }
    return p;
}

LayerOp read_mvau(const NodeReader& r) {
    Mvau m;
    m.mw = static_cast<unsigned>(r.integer("MW"));
    m.mh = static_cast<unsigned>(r.integer("MH"));
    m.pe = static_cast<unsigned>(r.integer("PE"));
    m.simd = static_cast<unsigned>(r.integer("SIMD"));
    m.in = r.type("inputDataType");
    m.weight = r.type("weightDataType");
    m.out = r.type("outputDataType");
    m.binary_xnor = r.integer("binaryXnorMode", 0, 0) != 0;
    m.act_val = r.signed_integer("ActVal", 0);
    m.vectors = product(r.integers("numInputVectors", 0, {1}));
    if (r.node().has("accDataType")) {
        m.acc = r.type("accDataType");
    }
    std::vector<int64_t> shape;
    const std::vector<int64_t> w =
        r.initializer(1, "weights", shape, std::ldexp(1.0, static_cast<int>(m.weight.frac_bits())));
    if (shape != std::vector<int64_t>{m.mw, m.mh}) {
        r.fail(fmt::format("weights have shape {}, expected [MW, MH] = [{}, {}]", shape_text(shape),
                           m.mw, m.mh));
    }
    m.weights.resize(w.size());
    for (size_t i = 0; i < m.mw; ++i) {  // [MW][MH] -> W[o][i]
        for (size_t o = 0; o < m.mh; ++o) {
            m.weights[o * m.mw + i] = w[i * m.mh + o];
        }
    }
    if (r.integer("noActivation", 0, 0) == 0) {
        m.thresholds = thresholds(r, 2, m.mh, m.in.frac_bits() + m.weight.frac_bits());
    }
    return m;
}

LayerOp read_vvau(const NodeReader& r) {
    Vvau v;
    v.channels = static_cast<unsigned>(r.integer("Channels"));
    const std::vector<uint64_t> k = r.integers("Kernel", 2);
    v.kh = static_cast<unsigned>(k[0]), v.kw = static_cast<unsigned>(k[1]);
    v.pe = static_cast<unsigned>(r.integer("PE"));
    v.simd = static_cast<unsigned>(r.integer("SIMD", 1));
    v.in = r.type("inputDataType");
    v.weight = r.type("weightDataType");
    v.out = r.type("outputDataType");
    v.act_val = r.signed_integer("ActVal", 0);
    v.pixels = product(r.integers("Dim", 2));
    if (r.node().has("accDataType")) {
        v.acc = r.type("accDataType");
    }
    std::vector<int64_t> shape;
    v.weights =
        r.initializer(1, "weights", shape, std::ldexp(1.0, static_cast<int>(v.weight.frac_bits())));
    const std::vector<int64_t> want{v.channels, 1, v.kh, v.kw};
    if (shape != want) {
        r.fail(fmt::format("weights have shape {}, expected [Channels, 1, K_h, K_w] = {}",
                           shape_text(shape), shape_text(want)));
    }
    if (r.integer("noActivation", 0, 0) == 0) {
        v.thresholds = thresholds(r, 2, v.channels, v.in.frac_bits() + v.weight.frac_bits());
    }
    return v;
}

LayerOp read_thresholding(const NodeReader& r) {
    ThresholdingLayer t;
    t.channels = static_cast<unsigned>(r.integer("NumChannels"));
    t.pe = static_cast<unsigned>(r.integer("PE"));
    t.act_val = r.signed_integer("ActVal", 0);
    t.bipolar_out = r.type("outputDataType").kind() == DataType::Kind::Bipolar;
    t.vectors = product(r.integers("numInputVectors", 0, {1}));
    t.thresholds = thresholds(r, 1, t.channels, r.type("inputDataType").frac_bits());
    return t;
}

LayerOp read_swg(const NodeReader& r) {
    SwgShape s;
    const std::vector<uint64_t> k = r.integers("ConvKernelDim", 2);
    const std::vector<uint64_t> ifm = r.integers("IFMDim", 2);
    const std::vector<uint64_t> stride = r.integers("Stride", 2, {1, 1});
    const std::vector<uint64_t> dil = r.integers("Dilation", 2, {1, 1});
    s.kh = k[0], s.kw = k[1], s.ifm_h = ifm[0], s.ifm_w = ifm[1];
    s.stride_h = stride[0], s.stride_w = stride[1], s.dil_h = dil[0], s.dil_w = dil[1];
    s.channels = r.integer("IFMChannels");
    s.simd = r.integer("SIMD");
    s.depthwise = r.integer("depthwise", 0, 0) != 0;
    const std::string& op = r.node().op_type;
    s.rtl = op.size() > 4 && op.compare(op.size() - 4, 4, "_rtl") == 0;
    if (r.integer("parallel_window", 0, 0) != 0) {
        r.fail("parallel_window 1 is not modelled (the window's serial output is)");
    }
    const std::vector<std::string> problems = check(s);
    if (!problems.empty()) {
        r.fail(problems.front());
    }
    const std::vector<uint64_t> ofm = r.integers("OFMDim", 2);
    if (ofm[0] != s.ofm_h() || ofm[1] != s.ofm_w()) {
        r.fail(
            fmt::format("OFMDim [{}, {}] does not follow from IFMDim, ConvKernelDim, Stride "
                        "and Dilation (no padding): expected [{}, {}]",
                        ofm[0], ofm[1], s.ofm_h(), s.ofm_w()));
    }
    return s;
}

LayerOp read_maxpool(const NodeReader& r) {
    PoolShape p;
    const std::vector<uint64_t> img = r.integers("ImgDim", 2);
    const std::vector<uint64_t> k = r.integers("PoolDim", 2);
    p.ifm_h = img[0], p.ifm_w = img[1], p.k = k[1];
    p.channels = r.integer("NumChannels");
    // FINN folds only a single row's channels by PE; a 2D pool streams whole pixels whatever PE
    // says (streamingmaxpool.py, get_folded_input_shape), and InferStreamingMaxPool writes PE 1.
    const uint64_t pe = r.integer("PE", 0, 0);
    p.pe = p.is_1d() ? pe : 0;
    if (r.integer("CeilMode", 0, 0) != 0) {
        r.fail("CeilMode 1 is not modelled (floor mode is)");
    }
    if (k[0] != (p.is_1d() ? 1 : k[1])) {
        r.fail(fmt::format("PoolDim [{}, {}]: expected a square pool, or [1, k] on a single row",
                           k[0], k[1]));
    }
    return p;
}

LayerOp read_dwc(const NodeReader& r) {
    const DataType t = r.type("dataType");
    const uint64_t in_bits = r.integer("inWidth"), out_bits = r.integer("outWidth");
    if (in_bits % t.bits() != 0 || out_bits % t.bits() != 0) {
        r.fail(fmt::format("inWidth {} and outWidth {} must be multiples of the {}-bit {}", in_bits,
                           out_bits, t.bits(), t.name()));
    }
    const std::string shape_attr = r.node().has("in_shape") ? "in_shape" : "shape";
    DwcLayer d;
    d.in_elements = in_bits / t.bits(), d.out_elements = out_bits / t.bits();
    d.frame_elements = product(r.integers(shape_attr, 0));
    return d;
}

LayerOp read_labelselect(const NodeReader& r) {
    LabelSelectLayer l;
    l.labels = static_cast<unsigned>(r.integer("Labels"));
    l.pe = static_cast<unsigned>(r.integer("PE"));
    l.k = static_cast<unsigned>(r.integer("K"));
    return l;
}

struct FinnOp {
    const char* op;
    std::function<LayerOp(const NodeReader&)> read;
    const char* in_type;   // the attribute naming its input's type
    const char* out_type;  // and its output's ("" when it is the input's)
};

// One table: each layer npusim runs, how to read it, and where its stream types are named.
const std::vector<FinnOp>& table() {
    static const std::vector<FinnOp> ops = {
        {"MVAU", read_mvau, "inputDataType", "outputDataType"},
        {"VVAU", read_vvau, "inputDataType", "outputDataType"},
        {"Thresholding", read_thresholding, "inputDataType", "outputDataType"},
        {"ConvolutionInputGenerator", read_swg, "inputDataType", ""},
        {"StreamingMaxPool", read_maxpool, "dataType", ""},
        {"StreamingDataWidthConverter", read_dwc, "dataType", ""},
        {"LabelSelect", read_labelselect, "inputDataType", "outputDataType"},
    };
    return ops;
}

const FinnOp* find_op(const std::string& base) {
    for (const FinnOp& op : table()) {
        if (base == op.op) {
            return &op;
        }
    }
    return nullptr;
}

}  // namespace

namespace {

// Problems that are not about one layer's attributes: nodes npusim does not run, all at once.
void refuse_unknown(const onnx::Graph& g, const std::string& source) {
    std::vector<std::string> unknown;
    for (const onnx::Node& n : g.nodes) {
        if (n.op_type == "StreamingDataflowPartition") {
            throw sim::Error(fmt::format(
                "{}: node '{}' is a StreamingDataflowPartition: give its model ({}) instead, the "
                "graph of FINN layers it stands for",
                source, n.name, n.get_string("model", "its 'model' attribute")));
        }
        if (!is_dataflow(n)) {
            unknown.push_back(fmt::format("'{}' ({}, domain '{}')", n.name, n.op_type, n.domain));
        } else if (find_op(base_op(n.op_type)) == nullptr &&
                   base_op(n.op_type) != "StreamingFIFO") {
            unknown.push_back(fmt::format("'{}' ({})", n.name, n.op_type));
        }
    }
    if (!unknown.empty()) {
        std::vector<std::string> known;  // the table's layers, then the FIFOs it reads as depths
        for (const FinnOp& op : table()) {
            known.emplace_back(op.op);
        }
        throw sim::Error(
            fmt::format("{}: npusim runs chains of {} and StreamingFIFO layers (domain "
                        "finn.custom_op.fpgadataflow); it does not run {}",
                        source, fmt::join(known, ", "), fmt::join(unknown, ", ")));
    }
}

const onnx::ValueInfo* find_info(const std::vector<onnx::ValueInfo>& infos,
                                 const std::string& name) {
    for (const onnx::ValueInfo& v : infos) {
        if (v.name == name) {
            return &v;
        }
    }
    return nullptr;
}

// The FIFO depth a node asks for in front of (`attr` inFIFODepths) or behind it (outFIFODepths).
uint64_t asked_depth(const NodeReader& r, const char* attr) {
    return r.node().has(attr) ? r.integers(attr, 0).front() : 2;
}

// A graph end's tensor, its frame elements checked against the layer's (a batch of 1 in front).
std::vector<int64_t> end_shape(const std::vector<onnx::ValueInfo>& infos, const std::string& name,
                               uint64_t elements, const std::string& source, const char* end) {
    const onnx::ValueInfo* info = find_info(infos, name);
    if (info == nullptr) {
        throw sim::Error(fmt::format("{}: the chain's {} tensor '{}' is not a graph {}", source,
                                     end, name, end));
    }
    uint64_t n = 1;  // dimensions without a size count as 1; past 2^40 no frame matches
    for (int64_t d : info->shape) {
        n = std::min<uint64_t>(n * static_cast<uint64_t>(d < 1 ? 1 : std::min<int64_t>(d, 1 << 20)),
                               uint64_t{1} << 40);
    }
    if (n != elements) {
        throw sim::Error(fmt::format(
            "{}: graph {} '{}' has shape {} ({} values), but the chain's {} frames of {}", source,
            end, name, shape_text(info->shape), n,
            std::string(end) == "input" ? "first layer takes" : "last layer writes", elements));
    }
    return info->shape;
}

// The layer a node describes with its own rules checked, before a converter is inserted for it
// (so that a broken rule names the user's node, issue #38).
LayerOp read_checked(const FinnOp& op, const NodeReader& r) {
    LayerOp layer = op.read(r);
    if (const std::vector<std::string> own = check(layer); !own.empty()) {
        r.fail_rule(own.front());
    }
    return layer;
}

// Where `next` reads words of another width than the chain's last layer writes (and the same
// frame), a StreamingDataWidthConverter between them, as FINN's InsertDWC adds one.
void insert_converter(Design& d, const LayerOp& next, std::vector<uint64_t>& depths) {
    const FrameElements from = frame_elements(d.layers.back().op);
    const FrameElements to = frame_elements(next);
    if (from.out != to.in || from.out_word == to.in_word) {
        return;  // nothing to convert, or check() names the mismatch
    }
    size_t k = 0;
    for (const Layer& l : d.layers) {
        k += l.inserted ? 1 : 0;
    }
    d.layers.push_back({fmt::format("StreamingDataWidthConverter_inserted_{}", k),
                        DwcLayer{from.out_word, to.in_word, from.out}, true, LayerStyle{}});
    depths.push_back(2);
}

// How a weight layer is built (its resources): the node's mem_mode, ram_style, resType and
// ram_style_thresholds (FINN's defaults when absent; FINN's older const/decoupled renamed).
LayerStyle read_style(const NodeReader& r) {
    LayerStyle s;
    const std::string& op = r.node().op_type;
    s.rtl = op.size() > 4 && op.compare(op.size() - 4, 4, "_rtl") == 0;
    s.mem_mode = r.node().get_string("mem_mode", s.mem_mode);
    s.mem_mode = s.mem_mode == "const"       ? "internal_embedded"
                 : s.mem_mode == "decoupled" ? "internal_decoupled"
                                             : s.mem_mode;
    s.ram_style = r.node().get_string("ram_style", s.ram_style);
    s.res_type = r.node().get_string("resType", s.res_type);
    s.ram_style_thresholds = r.node().get_string("ram_style_thresholds", s.ram_style_thresholds);
    if (const std::string problem = check(s); !problem.empty()) {
        const std::string attr = problem.substr(0, problem.find(' '));
        r.fail_attribute(attr, problem);
    }
    return s;
}

// The node's layer as the design keeps it: its name, and for a weight layer how it is built.
Layer user_layer(const NodeReader& r, LayerOp layer) {
    const bool weights = std::holds_alternative<Mvau>(layer) || std::holds_alternative<Vvau>(layer);
    LayerStyle style = weights ? read_style(r) : LayerStyle{};
    return {r.node().name, std::move(layer), false, std::move(style)};
}

}  // namespace

FinnModel import_finn(const onnx::Graph& g, const std::string& source) {
    refuse_unknown(g, source);
    FinnModel m;
    std::vector<uint64_t> depths{2};
    std::string tensor;  // the stream the next node must read
    DataType stream_type = DataType::sint(8);
    for (const onnx::Node& n : g.nodes) {
        const NodeReader r(g, n, source);
        if (n.inputs.empty() || n.outputs.empty()) {
            r.fail("expected an input stream and an output stream");
        }
        if (!tensor.empty() && n.inputs[0] != tensor) {
            r.fail(
                fmt::format("reads '{}', but the chain's stream so far is '{}': npusim runs "
                            "a chain, one layer after another (no branches)",
                            n.inputs[0], tensor));
        }
        if (tensor.empty()) {
            m.input_name = n.inputs[0];
        }
        tensor = n.outputs[0];
        if (base_op(n.op_type) == "StreamingFIFO") {
            depths.back() = std::max(depths.back(), r.integer("depth"));
            continue;
        }
        const FinnOp& op = *find_op(base_op(n.op_type));
        const DataType in = r.type(op.in_type);
        if (m.design.layers.empty()) {
            m.in_type = in;
        } else if (in != stream_type) {
            r.fail(fmt::format("{} is {}, but '{}' writes {}", op.in_type, in.name(),
                               m.design.layers.back().name, stream_type.name()));
        }
        stream_type = *op.out_type == '\0' ? in : r.type(op.out_type);
        LayerOp layer = read_checked(op, r);
        if (!m.design.layers.empty()) {
            insert_converter(m.design, layer, depths);
        }
        m.design.layers.push_back(user_layer(r, std::move(layer)));
        depths.back() = std::max(depths.back(), asked_depth(r, "inFIFODepths"));
        depths.push_back(asked_depth(r, "outFIFODepths"));
    }
    if (m.design.layers.empty()) {
        throw sim::Error(source + ": the graph has no FINN layers");
    }
    m.design.fifo_depths = depths;
    m.out_type = stream_type;
    m.output_name = tensor;
    const std::vector<std::string> problems = check(m.design);
    if (!problems.empty()) {
        throw sim::Error(fmt::format("{}: {}", source, problems.front()));
    }
    m.in_elements = frame_elements(m.design.layers.front().op).in;
    m.out_elements = frame_elements(m.design.layers.back().op).out;
    m.in_shape = end_shape(g.inputs, m.input_name, m.in_elements, source, "input");
    m.out_shape = end_shape(g.outputs, m.output_name, m.out_elements, source, "output");
    return m;
}

namespace {

onnx::Attribute attribute_of(const nlohmann::json& v, const std::string& where) {
    onnx::Attribute a;
    if (v.is_number_integer()) {
        a.kind = onnx::Attribute::Kind::i, a.i = v.get<int64_t>();
    } else if (v.is_string()) {
        a.kind = onnx::Attribute::Kind::s, a.s = v.get<std::string>();
    } else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const auto& x) {
                   return x.is_number_integer();
               })) {
        a.kind = onnx::Attribute::Kind::is;
        for (const auto& x : v) {
            a.is.push_back(x.get<int64_t>());
        }
    } else {
        throw sim::Error(fmt::format("{}: {} is not an integer, a string or a list of integers",
                                     where, sim::json_text(v)));
    }
    return a;
}

// "Defaults": {"attr": [value, ["MVAU_hls", ...] or "all"]}: the value for nodes of those op
// types (as written, or without the backend suffix: "MVAU") that their own entry does not set.
void apply_defaults(onnx::Graph& g, const nlohmann::json& defaults, const nlohmann::json& config,
                    const std::string& source) {
    for (const auto& [attr, spec] : defaults.items()) {
        const std::string where = fmt::format("{}: Defaults: {}", source, attr);
        if (!spec.is_array() || spec.size() != 2 || !(spec[1].is_array() || spec[1] == "all")) {
            throw sim::Error(where + ": expected [value, [op types]] or [value, \"all\"]");
        }
        onnx::Attribute a = attribute_of(spec[0], where);
        a.origin = fmt::format("{}: Defaults", source);
        for (onnx::Node& n : g.nodes) {
            const auto& ops = spec[1];
            const bool listed = ops == "all" ||
                                std::find(ops.begin(), ops.end(), n.op_type) != ops.end() ||
                                std::find(ops.begin(), ops.end(), base_op(n.op_type)) != ops.end();
            const bool own = config.contains(n.name) && config[n.name].contains(attr);
            if (listed && !own) {
                n.attributes[attr] = a;
            }
        }
    }
}

}  // namespace

void apply_folding(onnx::Graph& g, const nlohmann::json& config, const std::string& source) {
    if (!config.is_object()) {
        throw sim::Error(source + ": expected a JSON object of node names");
    }
    for (const auto& item : config.items()) {
        const std::string& name = item.key();
        const nlohmann::json& entry = item.value();
        if (name == "Defaults") {
            continue;
        }
        auto node = std::find_if(g.nodes.begin(), g.nodes.end(),
                                 [&](const onnx::Node& n) { return n.name == name; });
        if (node == g.nodes.end()) {
            throw sim::Error(
                fmt::format("{}: {}: the graph has no node of that name", source, name));
        }
        if (!entry.is_object()) {
            throw sim::Error(fmt::format("{}: {}: expected an object of attributes", source, name));
        }
        for (const auto& [attr, value] : entry.items()) {
            node->attributes[attr] =
                attribute_of(value, fmt::format("{}: {}: {}", source, name, attr));
            node->attributes[attr].origin = fmt::format("{}: {}", source, name);
        }
    }
    if (config.contains("Defaults")) {
        apply_defaults(g, config["Defaults"], config, source);
    }
}

FinnModel load_finn(const std::string& onnx_path, const std::string& folding_path) {
    onnx::ImportOptions opts;
    opts.run_checker = false;  // FINN's custom domains are not in the checker's opset registry
    opts.other_domains = true;
    onnx::Graph g = onnx::import_model(onnx_path, opts);
    if (!folding_path.empty()) {
        const std::vector<uint8_t> bytes = sim::read_file(folding_path);
        nlohmann::json config;
        try {
            config = nlohmann::json::parse(bytes.begin(), bytes.end());
        } catch (const nlohmann::json::exception& e) {
            throw sim::Error(fmt::format("{}: not JSON: {}", folding_path, e.what()));
        }
        apply_folding(g, config, folding_path);
    }
    return import_finn(g, onnx_path);
}

}  // namespace npu::finn
