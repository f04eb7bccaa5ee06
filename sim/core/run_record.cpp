#include "sim/core/run_record.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/version.h"
#include "sim/core/xml.h"

namespace npu::sim {

namespace {

using Json = nlohmann::ordered_json;

// Quantities as {name: {"value", "unit"}} (the stats tree's form); whole numbers as integers.
Json value_json(double v) {
    if (v > -9e15 && v < 9e15 && v == static_cast<double>(static_cast<int64_t>(v))) {
        return static_cast<int64_t>(v);
    }
    return v;
}

Json quantities_json(const std::vector<Quantity>& qs) {
    Json j = Json::object();
    for (const Quantity& q : qs) {
        j[q.name] = {{"value", value_json(q.value)}, {"unit", q.unit}};
    }
    return j;
}

Json tensor_json(const TensorRecord& t) {
    Json j = {{"name", t.name}, {"file", t.file}, {"shape", t.shape}, {"dtype", t.dtype}};
    if (!t.note.empty()) {
        j["note"] = t.note;
    }
    if (!t.sha256.empty()) {
        j["sha256"] = t.sha256;
    }
    if (t.layer) {
        j["layer"] = *t.layer;
    }
    return j;
}

Json engine_json(const EngineTime& e) {
    Json parts = Json::object();
    for (const Part& p : e.parts) {
        parts[p.name] = p.cycles;
    }
    return {{"engine", e.engine},
            {"ps", e.ps},
            {"clock", e.clock},
            {"clock_hz", value_json(e.clock_hz)},
            {"parts", parts}};
}

Json layer_json(const LayerRecord& l) {
    Json j = {{"index", l.index}, {"name", l.name}, {"op", l.op},
              {"shape", l.shape}, {"macs", l.macs}, {"param_bytes", l.param_bytes}};
    if (l.start_ps && l.end_ps) {
        j["start_ps"] = *l.start_ps;
        j["end_ps"] = *l.end_ps;
    }
    j["engines"] = Json::array();
    for (const EngineTime& e : l.engines) {
        j["engines"].push_back(engine_json(e));
    }
    j["measures"] = quantities_json(l.measures);
    return j;
}

Json check_json(const Check& c) {
    Json j = {{"name", c.name},         {"measured", value_json(c.measured)},
              {"relation", c.relation}, {"limit", value_json(c.limit)},
              {"unit", c.unit},         {"passed", c.passed}};
    if (c.layer) {
        j["layer"] = *c.layer;
        j["measure"] = c.measure;
    }
    return j;
}

// Tables as {name: {"title", "note", "columns": [{"name", "unit"}], "rows": [{column: cell}]}}.
Json tables_json(const std::vector<Table>& tables) {
    Json j = Json::object();
    for (const Table& t : tables) {
        Json columns = Json::array(), rows = Json::array();
        for (const Table::Column& c : t.columns) {
            columns.push_back({{"name", c.name}, {"unit", c.unit}});
        }
        for (const std::vector<Table::Cell>& row : t.rows) {
            Json o = Json::object();
            for (size_t k = 0; k < t.columns.size() && k < row.size(); ++k) {
                o[t.columns[k].name] = cell_json(row[k]);
            }
            rows.push_back(o);
        }
        j[t.name] = {{"title", t.title}, {"note", t.note}, {"columns", columns}, {"rows", rows}};
        if (!t.style.empty()) {
            j[t.name]["style"] = t.style;
        }
    }
    return j;
}

Json plot_measure_json(const SweepPlot::Measure& m) {
    return {{"key", m.key}, {"title", m.title}};
}

// {"group", "parameters": [...], "measures": [{"key", "title"}], "front": {"flag", "y", "x"}}.
Json plot_json(const SweepPlot& p) {
    Json j = {{"group", p.group}, {"parameters", p.parameters}, {"measures", Json::array()}};
    for (const SweepPlot::Measure& m : p.measures) {
        j["measures"].push_back(plot_measure_json(m));
    }
    if (!p.front_flag.empty()) {
        j["front"] = {
            {"flag", p.front_flag}, {"y", plot_measure_json(p.front_y)}, {"x", Json::array()}};
        for (const SweepPlot::Measure& m : p.front_x) {
            j["front"]["x"].push_back(plot_measure_json(m));
        }
    }
    return j;
}

// Reading back: each key of the type the schema gives, or one error naming the file and key.
class Reader {
public:
    explicit Reader(std::string source)
        : m_source(std::move(source)) {}

    const Json& at(const Json& j, const std::string& key, const std::string& where,
                   Json::value_t type) const {
        if (!j.is_object() || !j.contains(key)) {
            fail(where + key, "is missing");
        }
        const Json& v = j[key];
        const bool ok = type == Json::value_t::number_float
                            ? v.is_number()
                            : (type == Json::value_t::number_unsigned ? v.is_number_unsigned()
                                                                      : v.type() == type);
        if (!ok) {
            fail(where + key, "has the wrong type");
        }
        return v;
    }
    std::string str(const Json& j, const std::string& key, const std::string& where) const {
        return at(j, key, where, Json::value_t::string).get<std::string>();
    }
    uint64_t count(const Json& j, const std::string& key, const std::string& where) const {
        return at(j, key, where, Json::value_t::number_unsigned).get<uint64_t>();
    }
    double num(const Json& j, const std::string& key, const std::string& where) const {
        return at(j, key, where, Json::value_t::number_float).get<double>();
    }
    const Json& list(const Json& j, const std::string& key, const std::string& where) const {
        return at(j, key, where, Json::value_t::array);
    }
    std::vector<Quantity> quantities(const Json& j, const std::string& key,
                                     const std::string& where) const {
        std::vector<Quantity> out;
        for (const auto& [name, q] : at(j, key, where, Json::value_t::object).items()) {
            const std::string w = where + key + "." + name + ".";
            out.push_back({name, num(q, "value", w), str(q, "unit", w)});
        }
        return out;
    }
    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw Error(fmt::format("{}: not an npusim report ({}): '{}' {}", m_source,
                                RunRecord::kSchema, key, what));
    }

private:
    std::string m_source;
};

TensorRecord tensor_from(const Reader& r, const Json& j, const std::string& w) {
    TensorRecord t;
    t.name = r.str(j, "name", w);
    t.file = r.str(j, "file", w);
    for (const Json& d : r.list(j, "shape", w)) {
        if (!d.is_number_integer()) {
            r.fail(w + "shape", "has a dimension that is not an integer");
        }
        t.shape.push_back(d.get<int64_t>());
    }
    t.dtype = r.str(j, "dtype", w);
    t.note = j.contains("note") ? r.str(j, "note", w) : "";
    t.sha256 = j.contains("sha256") ? r.str(j, "sha256", w) : "";
    if (j.contains("layer")) {
        t.layer = r.count(j, "layer", w);
    }
    return t;
}

LayerRecord layer_from(const Reader& r, const Json& j, const std::string& w) {
    LayerRecord l;
    l.index = r.count(j, "index", w);
    l.name = r.str(j, "name", w);
    l.op = r.str(j, "op", w);
    l.shape = r.str(j, "shape", w);
    l.macs = r.count(j, "macs", w);
    l.param_bytes = r.count(j, "param_bytes", w);
    if (j.contains("start_ps") || j.contains("end_ps")) {
        l.start_ps = r.count(j, "start_ps", w);
        l.end_ps = r.count(j, "end_ps", w);
    }
    const Json& engines = r.list(j, "engines", w);
    for (size_t k = 0; k < engines.size(); ++k) {
        const std::string we = fmt::format("{}engines[{}].", w, k);
        EngineTime e{r.str(engines[k], "engine", we),
                     r.count(engines[k], "ps", we),
                     r.str(engines[k], "clock", we),
                     r.num(engines[k], "clock_hz", we),
                     {}};
        for (const auto& [name, c] : r.at(engines[k], "parts", we, Json::value_t::object).items()) {
            if (!c.is_number_unsigned()) {
                r.fail(we + "parts." + name, "is not a cycle count");
            }
            e.parts.push_back({name, c.get<uint64_t>()});
        }
        l.engines.push_back(std::move(e));
    }
    l.measures = r.quantities(j, "measures", w);
    return l;
}

Table table_from(const Reader& r, const std::string& name, const Json& j) {
    const std::string w = "tables." + name + ".";
    Table t{name,
            r.str(j, "title", w),
            r.str(j, "note", w),
            {},
            {},
            j.contains("style") ? r.str(j, "style", w) : ""};
    const Json& columns = r.list(j, "columns", w);
    for (size_t k = 0; k < columns.size(); ++k) {
        const std::string wc = fmt::format("{}columns[{}].", w, k);
        t.columns.push_back({r.str(columns[k], "name", wc), r.str(columns[k], "unit", wc)});
    }
    const Json& rows = r.list(j, "rows", w);
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::string wr = fmt::format("{}rows[{}].", w, i);
        std::vector<Table::Cell> row;
        for (const Table::Column& c : t.columns) {
            if (!rows[i].is_object() || !rows[i].contains(c.name)) {
                r.fail(wr + c.name, "is missing");
            }
            const Json& v = rows[i][c.name];
            if (v.is_number()) {
                row.emplace_back(v.get<double>());
            } else if (v.is_string()) {
                row.emplace_back(v.get<std::string>());
            } else {
                r.fail(wr + c.name, "is neither a number nor a text");
            }
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<SweepPlot::Measure> plot_measures(const Reader& rd, const Json& j,
                                              const std::string& key, const std::string& w) {
    std::vector<SweepPlot::Measure> out;
    const Json& list = rd.list(j, key, w);
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string wm = fmt::format("{}{}[{}].", w, key, i);
        out.push_back({rd.str(list[i], "key", wm), rd.str(list[i], "title", wm)});
    }
    return out;
}

SweepPlot plot_from(const Reader& rd, const Json& j) {
    SweepPlot p;
    p.group = rd.str(j, "group", "plot.");
    for (const Json& k : rd.list(j, "parameters", "plot.")) {
        if (!k.is_string()) {
            rd.fail("plot.parameters", "has an entry that is not a text");
        }
        p.parameters.push_back(k.get<std::string>());
    }
    p.measures = plot_measures(rd, j, "measures", "plot.");
    if (j.contains("front")) {
        const Json& f = rd.at(j, "front", "plot.", Json::value_t::object);
        p.front_flag = rd.str(f, "flag", "plot.front.");
        const Json& y = rd.at(f, "y", "plot.front.", Json::value_t::object);
        p.front_y = {rd.str(y, "key", "plot.front.y."), rd.str(y, "title", "plot.front.y.")};
        p.front_x = plot_measures(rd, f, "x", "plot.front.");
    }
    return p;
}

// The checks; a check tied to a layer names a position among the `layers` layers read before.
std::vector<Check> checks_from(const Reader& rd, const Json& j, size_t layers) {
    std::vector<Check> out;
    const Json& checks = rd.list(j, "checks", "");
    for (size_t i = 0; i < checks.size(); ++i) {
        const std::string w = fmt::format("checks[{}].", i);
        Check c{rd.str(checks[i], "name", w),
                rd.num(checks[i], "measured", w),
                rd.str(checks[i], "relation", w),
                rd.num(checks[i], "limit", w),
                rd.str(checks[i], "unit", w),
                rd.at(checks[i], "passed", w, Json::value_t::boolean).get<bool>(),
                std::nullopt,
                ""};
        if (checks[i].contains("layer") || checks[i].contains("measure")) {
            c.layer = rd.count(checks[i], "layer", w);
            c.measure = rd.str(checks[i], "measure", w);
            if (*c.layer >= layers) {
                rd.fail(w + "layer", "is not the position of a layer");
            }
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<TensorRecord> tensors_from(const Reader& r, const Json& j, const std::string& key) {
    std::vector<TensorRecord> out;
    const Json& list = r.list(j, key, "");
    for (size_t i = 0; i < list.size(); ++i) {
        out.push_back(tensor_from(r, list[i], fmt::format("{}[{}].", key, i)));
    }
    return out;
}

std::string csv_text(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) {
        return s;
    }
    std::string q = "\"";
    for (char c : s) {
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

void add_name(std::vector<std::string>& names, const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) {
        names.push_back(n);
    }
}

}  // namespace

Json cell_json(const Table::Cell& c) {
    return std::holds_alternative<double>(c) ? value_json(std::get<double>(c))
                                             : Json(std::get<std::string>(c));
}

double Table::number(const Cell& c) {
    return std::holds_alternative<double>(c) ? std::get<double>(c) : 0;
}

const Quantity* LayerRecord::measure(const std::string& measure_name) const {
    const auto it = std::find_if(measures.begin(), measures.end(),
                                 [&](const Quantity& q) { return q.name == measure_name; });
    return it == measures.end() ? nullptr : &*it;
}

std::optional<size_t> RunRecord::first_failing_layer() const {
    std::optional<size_t> first;
    for (const Check& c : checks) {
        if (!c.passed && c.layer && (!first || *c.layer < *first)) {
            first = c.layer;
        }
    }
    return first;
}

const Quantity* RunRecord::total(const std::string& name) const {
    const auto it = std::find_if(totals.begin(), totals.end(),
                                 [&](const Quantity& q) { return q.name == name; });
    return it == totals.end() ? nullptr : &*it;
}

const Table* RunRecord::table(const std::string& name) const {
    const auto it =
        std::find_if(tables.begin(), tables.end(), [&](const Table& t) { return t.name == name; });
    return it == tables.end() ? nullptr : &*it;
}

const Table::Cell* Table::cell(size_t row, const std::string& column) const {
    for (size_t k = 0; k < columns.size(); ++k) {
        if (columns[k].name == column && row < rows.size() && k < rows[row].size()) {
            return &rows[row][k];
        }
    }
    return nullptr;
}

bool RunRecord::passed() const {
    return std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed; });
}

Json to_json(const RunRecord& r) {
    Json j;
    j["schema"] = RunRecord::kSchema;
    j["tool"] = "npusim";
    j["version"] = npusim_version();
    j["command"] = r.command;
    j["mode"] = r.mode;
    j["platform"] = {{"kind", r.platform.kind},
                     {"name", r.platform.name},
                     {"source", r.platform.source},
                     {"parameters", quantities_json(r.platform.parameters)}};
    j["program"] = {{"file", r.program.file},
                    {"format", r.program.format},
                    {"facts", quantities_json(r.program.facts)}};
    for (const auto& [key, list] :
         {std::pair{"inputs", &r.inputs}, std::pair{"outputs", &r.outputs},
          std::pair{"layer_dumps", &r.dumps}}) {
        j[key] = Json::array();
        for (const TensorRecord& t : *list) {
            j[key].push_back(tensor_json(t));
        }
    }
    j["layers"] = Json::array();
    for (const LayerRecord& l : r.layers) {
        j["layers"].push_back(layer_json(l));
    }
    j["totals"] = quantities_json(r.totals);
    j["checks"] = Json::array();
    for (const Check& c : r.checks) {
        j["checks"].push_back(check_json(c));
    }
    j["passed"] = r.passed();
    j["notes"] = r.notes;
    j["tables"] = tables_json(r.tables);
    if (!r.rows.empty()) {
        j["rows"] = r.rows;
    }
    if (r.plot) {
        j["plot"] = plot_json(*r.plot);
    }
    j["stats"] = r.stats.is_null() ? Json::object() : r.stats;
    j["extra"] = r.extra.is_null() ? Json::object() : r.extra;
    return j;
}

bool is_record_json(const Json& j) {
    return j.is_object() && j.contains("schema") && j["schema"] == RunRecord::kSchema;
}

RunRecord record_from_json(const Json& j, const std::string& source) {
    const Reader rd(source);
    if (!is_record_json(j)) {
        rd.fail("schema", "is not \"" + std::string(RunRecord::kSchema) + "\"");
    }
    RunRecord r;
    r.command = rd.str(j, "command", "");
    r.mode = rd.str(j, "mode", "");
    const Json& p = rd.at(j, "platform", "", Json::value_t::object);
    r.platform.kind = rd.str(p, "kind", "platform.");
    r.platform.name = rd.str(p, "name", "platform.");
    r.platform.source = rd.str(p, "source", "platform.");
    r.platform.parameters = rd.quantities(p, "parameters", "platform.");
    const Json& g = rd.at(j, "program", "", Json::value_t::object);
    r.program.file = rd.str(g, "file", "program.");
    r.program.format = rd.str(g, "format", "program.");
    r.program.facts = rd.quantities(g, "facts", "program.");
    r.inputs = tensors_from(rd, j, "inputs");
    r.outputs = tensors_from(rd, j, "outputs");
    r.dumps = tensors_from(rd, j, "layer_dumps");
    const Json& layers = rd.list(j, "layers", "");
    for (size_t i = 0; i < layers.size(); ++i) {
        r.layers.push_back(layer_from(rd, layers[i], fmt::format("layers[{}].", i)));
    }
    r.totals = rd.quantities(j, "totals", "");
    r.checks = checks_from(rd, j, r.layers.size());
    if (j.contains("notes")) {
        for (const Json& n : rd.list(j, "notes", "")) {
            if (!n.is_string()) {
                rd.fail("notes", "has an entry that is not a text");
            }
            r.notes.push_back(n.get<std::string>());
        }
    }
    if (j.contains("tables")) {
        for (const auto& [name, t] : rd.at(j, "tables", "", Json::value_t::object).items()) {
            r.tables.push_back(table_from(rd, name, t));
        }
    }
    if (j.contains("rows")) {  // read beside report.json: a plain file name only
        r.rows = rd.str(j, "rows", "");
        if (r.rows.empty() || r.rows.find_first_of("/\\") != std::string::npos || r.rows == "." ||
            r.rows == "..") {
            rd.fail("rows", "is not the name of a file in the folder");
        }
    }
    if (j.contains("plot")) {
        r.plot = plot_from(rd, rd.at(j, "plot", "", Json::value_t::object));
    }
    r.stats = rd.at(j, "stats", "", Json::value_t::object);
    r.extra = rd.at(j, "extra", "", Json::value_t::object);
    return r;
}

std::vector<EngineTime> engine_totals(const RunRecord& r) {
    std::vector<EngineTime> out;
    for (const LayerRecord& l : r.layers) {
        for (const EngineTime& e : l.engines) {
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const EngineTime& o) { return o.engine == e.engine; });
            if (it == out.end()) {
                out.push_back({e.engine, 0, e.clock, e.clock_hz, {}});
                it = std::prev(out.end());
            }
            it->ps += e.ps;
            for (const Part& p : e.parts) {
                auto pt = std::find_if(it->parts.begin(), it->parts.end(),
                                       [&](const Part& q) { return q.name == p.name; });
                if (pt == it->parts.end()) {
                    it->parts.push_back({p.name, 0});
                    pt = std::prev(it->parts.end());
                }
                pt->cycles += p.cycles;
            }
        }
    }
    return out;
}

namespace {

// layers.csv's columns beyond the fixed ones, in first-seen order.
struct CsvColumns {
    bool timed = false, named = false;
    std::vector<std::string> engines, measures;
    std::vector<std::pair<std::string, std::string>> parts;  // engine, part
};

CsvColumns csv_columns(const RunRecord& r) {
    CsvColumns c;
    for (const LayerRecord& l : r.layers) {
        c.timed = c.timed || l.start_ps.has_value();
        c.named = c.named || !l.name.empty();
        for (const EngineTime& e : l.engines) {
            add_name(c.engines, e.engine);
            for (const Part& p : e.parts) {
                if (std::find(c.parts.begin(), c.parts.end(), std::pair{e.engine, p.name}) ==
                    c.parts.end()) {
                    c.parts.emplace_back(e.engine, p.name);
                }
            }
        }
        for (const Quantity& q : l.measures) {
            add_name(c.measures, q.name);
        }
    }
    return c;
}

std::string csv_row(const LayerRecord& l, const CsvColumns& c) {
    std::string s = std::to_string(l.index) + (c.named ? "," + csv_text(l.name) : "");
    s += fmt::format(",{},{},{},{}", csv_text(l.op), csv_text(l.shape), l.macs, l.param_bytes);
    if (c.timed) {
        s += fmt::format(",{:.6f},{:.6f}", static_cast<double>(l.start_ps.value_or(0)) / 1e6,
                         static_cast<double>(l.end_ps.value_or(0)) / 1e6);
    }
    const auto engine = [&](const std::string& name) {
        return std::find_if(l.engines.begin(), l.engines.end(),
                            [&](const EngineTime& x) { return x.engine == name; });
    };
    for (const std::string& name : c.engines) {
        const auto e = engine(name);
        s += e == l.engines.end() ? "," : fmt::format(",{:.6f}", static_cast<double>(e->ps) / 1e6);
    }
    for (const auto& column : c.parts) {
        const std::string& part = column.second;  // a lambda may not capture a binding (C++17)
        const auto e = engine(column.first);
        const auto p = e == l.engines.end()
                           ? std::vector<Part>::const_iterator()
                           : std::find_if(e->parts.begin(), e->parts.end(),
                                          [&](const Part& q) { return q.name == part; });
        s += e == l.engines.end() || p == e->parts.end() ? "," : fmt::format(",{}", p->cycles);
    }
    for (const std::string& m : c.measures) {
        const Quantity* q = l.measure(m);
        s += q == nullptr ? "," : fmt::format(",{}", q->value);
    }
    return s + "\n";
}

}  // namespace

std::string junit_xml(const RunRecord& r) {
    const std::string suite = xml_escape("npusim." + r.command);
    size_t failures = 0;
    std::string cases;
    for (const Check& c : r.checks) {
        failures += c.passed ? 0 : 1;
        const std::string unit = c.unit.empty() ? "" : " " + c.unit;
        const std::string failure =
            c.passed
                ? ""
                : fmt::format("<failure message=\"{}\"/>",
                              xml_escape(fmt::format("{:.6g}{}, expected {} {:.6g}{}", c.measured,
                                                     unit, c.relation, c.limit, unit)));
        cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\">{}</testcase>\n", suite,
                             xml_escape(c.name), failure);
    }
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" "
        "tests=\"{}\" failures=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
        suite, r.checks.size(), failures, cases);
}

std::string layers_csv(const RunRecord& r) {
    const CsvColumns c = csv_columns(r);
    std::string s =
        c.named ? "index,name,op,shape,macs,param_bytes" : "index,op,shape,macs,param_bytes";
    s += c.timed ? ",start_us,end_us" : "";
    for (const std::string& e : c.engines) {
        s += "," + csv_text(e + " us");
    }
    for (const auto& [engine, part] : c.parts) {
        s += "," + csv_text(engine + " " + part + " cycles");
    }
    for (const std::string& m : c.measures) {
        s += "," + csv_text(m);
    }
    s += "\n";
    for (const LayerRecord& l : r.layers) {
        s += csv_row(l, c);
    }
    return s;
}

}  // namespace npu::sim
