#include "sim/report/estimate_page.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/json_text.h"
#include "sim/report/html_parts.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;

using Plot = sim::SweepPlot;
using Measure = sim::SweepPlot::Measure;

std::string label(const Json& v) {
    return v.is_string() ? v.get<std::string>() : sim::json_text(v);
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
std::string front_section(const Json& rows, const Plot& f) {
    std::vector<const Json*> flagged;
    for (const Json& r : rows) {
        if (r.value(f.front_flag, false)) {
            flagged.push_back(&r);
        }
    }
    std::stable_sort(flagged.begin(), flagged.end(), [&](const Json* a, const Json* b) {
        return number_or_zero(*a, f.front_y.key) < number_or_zero(*b, f.front_y.key);
    });
    std::string s = fmt::format(
        "<h2>The front ({} of {} configurations)</h2>\n<p class=\"note\">Configurations no "
        "other one matches or beats in {} and every resource at once, with at least one "
        "better; each chart shows every valid configuration (small) and the front (large), on "
        "log axes.</p>\n",
        flagged.size(), rows.size(), escape(f.front_y.title));
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
    for (const Measure& x : f.front_x) {
        std::vector<Point> points;
        std::vector<bool> on;
        size_t other = 0;
        for (const Json& r : rows) {
            const bool flagged_row = r.value(f.front_flag, false);
            if (!flagged_row && other++ % stride != 0) {
                continue;
            }
            points.push_back({r.contains("config") ? label(r["config"]) : "",
                              number_or_zero(r, x.key), number_or_zero(r, f.front_y.key)});
            on.push_back(flagged_row);
        }
        s += fmt::format("<div class=\"chart\" data-front=\"{}\">{}</div>\n", escape(x.key),
                         front(points, on, Axes(x.title, f.front_y.title, 640, 320)));
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
    if (!plot.front_flag.empty()) {
        s += front_section(rows, plot);
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

}  // namespace

std::string sweep_html(const Json& rows, const sim::SweepPlot& plot, const std::string& source) {
    if (!rows.is_array() || rows.empty()) {
        throw sim::Error(source + ": no configurations to draw");
    }
    for (const Json& r : rows) {
        if (!r.is_object()) {
            throw sim::Error(source + ": a configuration that is not an object");
        }
    }
    return page("npusim estimate: a sweep", sweep_body(rows, plot));
}

}  // namespace npu::report
