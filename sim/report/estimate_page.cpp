#include "sim/report/estimate_page.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/report/html_parts.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;

struct Measure {
    std::string key, title;
};

// A front to draw (a folding sweep's): the rows `flag` marks, y against each x.
struct Front {
    std::string flag;
    Measure y;
    std::vector<Measure> x;
};

struct Plot {
    std::string group;
    std::vector<std::string> parameters;
    std::vector<Measure> measures;
    std::optional<Front> front;
};

Measure read_measure(const Json& m) {
    return {m.at("key").get<std::string>(), m.at("title").get<std::string>()};
}

Plot read_plot(const Json& j, const std::string& source) {
    Plot p;
    try {
        p.group = j.value("group", std::string());
        for (const Json& k : j.at("parameters")) {
            p.parameters.push_back(k.get<std::string>());
        }
        for (const Json& m : j.at("measures")) {
            p.measures.push_back(read_measure(m));
        }
        if (j.contains("front")) {
            const Json& f = j["front"];
            p.front = Front{f.at("flag").get<std::string>(), read_measure(f.at("y")), {}};
            for (const Json& x : f.at("x")) {
                p.front->x.push_back(read_measure(x));
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(
            fmt::format("{}: plot: expected group, parameters, measures and an optional front ({})",
                        source, e.what()));
    }
    return p;
}

std::string label(const Json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// Orders parameter values: numbers by value, then everything else by its text.
bool before(const Json& a, const Json& b) {
    if (a.is_number() && b.is_number()) {
        return a.get<double>() < b.get<double>();
    }
    if (a.is_number() != b.is_number()) {
        return a.is_number();
    }
    return label(a) < label(b);
}

Range spread(const std::string& name, std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {name, v.front(), v[(v.size() - 1) / 2], v.back(), v.size()};
}

// One parameter of one group: per measure a whisker chart, then one table of all of them.
std::string parameter_section(const std::vector<const Json*>& rows, const std::string& param,
                              const Plot& plot) {
    std::vector<Json> values;
    for (const Json* r : rows) {
        const Json& v = r->contains(param) ? (*r)[param] : Json();
        if (std::none_of(values.begin(), values.end(), [&](const Json& x) { return x == v; })) {
            values.push_back(v);
        }
    }
    if (values.size() < 2) {
        return "";  // not swept in this group
    }
    std::sort(values.begin(), values.end(), before);
    std::string s = fmt::format("<h3>against {}</h3>\n", escape(param));
    Json table = Json::array();
    for (const Json& v : values) {
        table.push_back({{param, v}});
    }
    for (const Measure& m : plot.measures) {
        std::vector<Range> ranges_of;
        for (size_t i = 0; i < values.size(); ++i) {
            std::vector<double> ys;
            for (const Json* r : rows) {
                const Json& v = r->contains(param) ? (*r)[param] : Json();
                if (v == values[i] && r->contains(m.key) && (*r)[m.key].is_number()) {
                    ys.push_back((*r)[m.key].get<double>());
                }
            }
            if (ys.empty()) {
                continue;
            }
            const Range rg = spread(label(values[i]), ys);
            ranges_of.push_back(rg);
            table[i]["configurations"] = rg.count;
            table[i][m.key + " min"] = rg.min, table[i][m.key + " median"] = rg.median;
            table[i][m.key + " max"] = rg.max;
        }
        s += fmt::format(
            "<div class=\"chart\" data-parameter=\"{}\" data-measure=\"{}\">{}</div>\n",
            escape(param), escape(m.key), ranges(ranges_of, Axes(param, m.title, 640, 260)));
    }
    return s + json_table(table);
}

double number_or_zero(const Json& row, const std::string& key) {
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : 0.0;
}

// Every configuration as a point of y against each x, the flagged ones (the front) marked, and
// the flagged rows as a table, fewest y first.
std::string front_section(const Json& rows, const Front& f) {
    std::vector<const Json*> flagged;
    for (const Json& r : rows) {
        if (r.value(f.flag, false)) {
            flagged.push_back(&r);
        }
    }
    std::stable_sort(flagged.begin(), flagged.end(), [&](const Json* a, const Json* b) {
        return number_or_zero(*a, f.y.key) < number_or_zero(*b, f.y.key);
    });
    std::string s = fmt::format(
        "<h2>The front ({} of {} configurations)</h2>\n<p class=\"note\">Configurations no "
        "other one matches or beats in {} and every resource at once, with at least one "
        "better; each chart shows every valid configuration (small) and the front (large), on "
        "log axes.</p>\n",
        flagged.size(), rows.size(), escape(f.y.title));
    // Every front point; of the others at most kOthersDrawn, evenly spaced (the page stays small).
    constexpr size_t kOthersDrawn = 2000;
    const size_t others = rows.size() - flagged.size();
    const size_t stride = others > kOthersDrawn ? (others + kOthersDrawn - 1) / kOthersDrawn : 1;
    if (stride > 1) {
        s += fmt::format(
            "<p class=\"note\">Drawn: the front and one in {} of the other configurations "
            "({} of {}).</p>\n",
            stride, (others + stride - 1) / stride, others);
    }
    for (const Measure& x : f.x) {
        std::vector<Point> points;
        std::vector<bool> on;
        size_t other = 0;
        for (const Json& r : rows) {
            const bool flagged_row = r.value(f.flag, false);
            if (!flagged_row && other++ % stride != 0) {
                continue;
            }
            points.push_back({r.contains("config") ? label(r["config"]) : "",
                              number_or_zero(r, x.key), number_or_zero(r, f.y.key)});
            on.push_back(flagged_row);
        }
        s += fmt::format("<div class=\"chart\" data-front=\"{}\">{}</div>\n", escape(x.key),
                         front(points, on, Axes(x.title, f.y.title, 640, 320)));
    }
    Json table = Json::array();
    for (const Json* r : flagged) {
        table.push_back(*r);
    }
    return s + "<div id=\"front\">" + json_table(table) + "</div>\n";
}

std::string sweep_body(const Json& rows, const Plot& plot) {
    std::vector<std::string> groups;
    std::map<std::string, std::vector<const Json*>> by_group;
    for (const Json& r : rows) {
        const std::string g = r.contains(plot.group) ? label(r[plot.group]) : "";
        if (by_group.count(g) == 0) {
            groups.push_back(g);
        }
        by_group[g].push_back(&r);
    }
    std::string s = fmt::format(
        "<p class=\"note\">{} configurations in {} groups. Each chart: for every value of one "
        "parameter, the measure over all configurations of the group with that value (a line "
        "from min to max, a dot at the median). The tables hold the same numbers; the estimate's "
        "files every configuration.</p>\n",
        rows.size(), groups.size());
    if (plot.front) {
        s += front_section(rows, *plot.front);
    }
    for (const std::string& g : groups) {
        const std::vector<const Json*>& members = by_group[g];
        s += fmt::format("<h2>{} ({} configurations)</h2>\n", escape(g.empty() ? "all" : g),
                         members.size());
        for (const std::string& p : plot.parameters) {
            s += parameter_section(members, p, plot);
        }
    }
    return s;
}

std::string layers_body(const Json& layers, const Plot& plot) {
    std::vector<std::string> labels;
    for (size_t i = 0; i < layers.size(); ++i) {
        labels.push_back(layers[i].contains("index") ? label(layers[i]["index"])
                                                     : std::to_string(i));
    }
    std::string s;
    for (const Measure& m : plot.measures) {
        Series series{m.title, {}};
        for (const Json& l : layers) {
            series.values.push_back(
                l.contains(m.key) && l[m.key].is_number() ? l[m.key].get<double>() : 0.0);
        }
        s += fmt::format(
            "<h2>{} per layer</h2>\n<div class=\"chart\" data-measure=\"{}\">{}</div>\n",
            escape(m.title), escape(m.key), stacked_bars(labels, {series}, Axes("layer", m.title)));
    }
    return s + "<h2>Layers</h2>\n" + json_table(layers);
}

}  // namespace

std::string estimate_html(const Json& estimate, const Json& plot_json, const std::string& source) {
    const Plot plot = read_plot(plot_json, source);
    if (estimate.is_array() && !estimate.empty()) {
        return page("npusim estimate: a sweep", sweep_body(estimate, plot));
    }
    if (estimate.is_object() && estimate.contains("layers") && estimate["layers"].is_array() &&
        !estimate["layers"].empty()) {
        return page("npusim estimate: a program's layers", layers_body(estimate["layers"], plot));
    }
    throw sim::Error(source + ": no configurations or layers to draw");
}

}  // namespace npu::report
