#include "sim/report/svg.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "sim/core/xml.h"

namespace npu::report {

namespace {

constexpr double kLeft = 70, kRight = 20, kTop = 30, kBottom = 60;

// A "nice" step for about `n` ticks over [0, hi].
double tick_step(double hi, int n) {
    if (hi <= 0) {
        return 1;
    }
    const double raw = hi / n;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * mag >= raw) {
            return m * mag;
        }
    }
    return 10 * mag;
}

std::string number(double v) {
    return fmt::format("{:g}", v);
}

// Frame, y ticks and grid over [0, y_max], the axis titles; returns the SVG prefix.
std::string frame(const Axes& a, double y_max, double& scale_y) {
    const double ph = a.height - kTop - kBottom;
    const double step = tick_step(y_max, 5);
    const double top = std::max(step, std::ceil(y_max / step) * step);
    scale_y = ph / top;
    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        a.width, a.height);
    auto it = std::back_inserter(s);
    for (double v = 0; v <= top + step / 2; v += step) {
        const double y = kTop + ph - v * scale_y;
        fmt::format_to(it,
                       "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                       kLeft, a.width - kRight, y, y, kLeft - 4, y + 4, number(v));
    }
    fmt::format_to(it,
                   "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}"
                   "</text>\n<text class=\"axis-title\" transform=\"rotate(-90)\" x=\"{:.1f}\" "
                   "y=\"14\" text-anchor=\"middle\">{}</text>\n",
                   kLeft + (a.width - kLeft - kRight) / 2, a.height - 8, escape(a.x_title),
                   -(kTop + ph / 2), escape(a.y_title));
    return s;
}

}  // namespace

std::string escape(const std::string& s) {
    // XML's escapes, and the apostrophe too (attribute values in either quote).
    std::string out;
    for (char c : sim::xml_escape(s)) {
        out += c == '\'' ? std::string("&#39;") : std::string(1, c);
    }
    return out;
}

const char* colour(size_t i) {
    static const char* const kPalette[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                           "#66ccee", "#aa3377", "#bbbbbb", "#000000"};
    return kPalette[i % std::size(kPalette)];
}

std::string stacked_bars(const std::vector<std::string>& labels, const std::vector<Series>& series,
                         const Axes& a) {
    double y_max = std::max(0.0, a.line);
    for (size_t i = 0; i < labels.size(); ++i) {
        double sum = 0;
        for (const Series& s : series) {
            sum += i < s.values.size() ? std::max(0.0, s.values[i]) : 0;
        }
        y_max = std::max(y_max, sum);
    }
    double sy = 1;
    std::string s = frame(a, y_max, sy);
    auto it = std::back_inserter(s);
    const double pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
    const double slot = labels.empty() ? pw : pw / static_cast<double>(labels.size());
    const double bw = std::max(1.0, slot * 0.8);
    for (size_t i = 0; i < labels.size(); ++i) {
        double base = kTop + ph;
        const double x = kLeft + slot * static_cast<double>(i) + (slot - bw) / 2;
        for (size_t k = 0; k < series.size(); ++k) {
            const double v = i < series[k].values.size() ? std::max(0.0, series[k].values[i]) : 0;
            const double h = v * sy;
            base -= h;
            fmt::format_to(it,
                           "<rect class=\"bar\" data-item=\"{}\" data-series=\"{}\" x=\"{:.2f}\" "
                           "y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>{} "
                           "{}: {}</title></rect>\n",
                           i, escape(series[k].name), x, base, bw, h, colour(k), escape(labels[i]),
                           escape(series[k].name), number(v));
        }
        if (static_cast<long>(i) == a.marked_item) {
            fmt::format_to(it,
                           "<path class=\"marked\" data-item=\"{}\" d=\"M{:.1f},{:.1f} l6,-10 "
                           "l-12,0 z\" fill=\"#cc0000\"><title>{}</title></path>\n",
                           i, x + bw / 2, base - 2, escape(labels[i]));
        }
        if (labels.size() <= 40) {  // labels fit under the bars
            fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                           x + bw / 2, kTop + ph + 14, escape(labels[i]));
        }
    }
    if (a.line >= 0) {
        const double y = kTop + ph - a.line * sy;
        fmt::format_to(it,
                       "<line class=\"tolerance\" x1=\"{}\" x2=\"{}\" y1=\"{:.2f}\" y2=\"{:.2f}\" "
                       "stroke=\"#cc0000\" stroke-dasharray=\"6,4\"/><text x=\"{}\" y=\"{:.1f}\" "
                       "text-anchor=\"end\" fill=\"#cc0000\">{}</text>\n",
                       kLeft, a.width - kRight, y, y, a.width - kRight, y - 4,
                       escape(a.line_label));
    }
    double lx = kLeft;
    for (size_t k = 0; k < series.size(); ++k) {
        fmt::format_to(it,
                       "<rect x=\"{:.1f}\" y=\"8\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text class=\"legend\" x=\"{:.1f}\" y=\"17\">{}</text>\n",
                       lx, colour(k), lx + 14, escape(series[k].name));
        lx += 24 + 7.0 * static_cast<double>(series[k].name.size());
    }
    return s + "</svg>\n";
}

std::string ranges(const std::vector<Range>& values, const Axes& a) {
    double y_max = 0;
    for (const Range& r : values) {
        y_max = std::max(y_max, r.max);
    }
    double sy = 1;
    std::string s = frame(a, y_max, sy);
    auto it = std::back_inserter(s);
    const double pw = a.width - kLeft - kRight, ph = a.height - kTop - kBottom;
    const double slot = values.empty() ? pw : pw / static_cast<double>(values.size());
    auto py = [&](double v) {
        return kTop + ph - std::max(0.0, v) * sy;
    };
    for (size_t i = 0; i < values.size(); ++i) {
        const Range& r = values[i];
        const double x = kLeft + slot * (static_cast<double>(i) + 0.5);
        fmt::format_to(
            it,
            "<line class=\"range\" data-item=\"{0}\" x1=\"{1:.1f}\" x2=\"{1:.1f}\" "
            "y1=\"{2:.2f}\" y2=\"{3:.2f}\" stroke=\"{4}\" stroke-width=\"3\"><title>{5}: "
            "{6} to {7} ({8} configurations)</title></line>\n"
            "<circle class=\"median\" data-item=\"{0}\" cx=\"{1:.1f}\" cy=\"{9:.2f}\" "
            "r=\"4\" fill=\"#000\"><title>{5}: median {10}</title></circle>\n",
            i, x, py(r.min), py(r.max), colour(0), escape(r.label), number(r.min), number(r.max),
            r.count, py(r.median), number(r.median));
        if (values.size() <= 40) {
            fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                           x, kTop + ph + 14, escape(r.label));
        }
    }
    return s + "</svg>\n";
}

std::string timeline(const std::vector<Span>& spans, const Axes& a) {
    std::vector<std::string> lanes;
    double t_min = spans.empty() ? 0 : spans.front().start, t_max = t_min;
    for (const Span& sp : spans) {
        if (std::find(lanes.begin(), lanes.end(), sp.lane) == lanes.end()) {
            lanes.push_back(sp.lane);
        }
        t_min = std::min(t_min, sp.start), t_max = std::max(t_max, sp.end);
    }
    const double pw = a.width - kLeft - kRight;
    const double lane_h = 28, height = kTop + lane_h * static_cast<double>(lanes.size()) + kBottom;
    const double span = t_max > t_min ? t_max - t_min : 1;
    const double step = tick_step(span, 8);
    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        a.width, height);
    auto it = std::back_inserter(s);
    const double axis_y = kTop + lane_h * static_cast<double>(lanes.size());
    for (double v = std::ceil(t_min / step) * step; v <= t_max + step / 1e6; v += step) {
        const double x = kLeft + (v - t_min) / span * pw;  // ticks at whole steps of time
        fmt::format_to(it,
                       "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       x, kTop, axis_y, axis_y + 14, number(v));
    }
    for (size_t l = 0; l < lanes.size(); ++l) {
        fmt::format_to(it, "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 4,
                       kTop + lane_h * (static_cast<double>(l) + 0.6), escape(lanes[l]));
    }
    for (const Span& sp : spans) {
        const size_t l =
            static_cast<size_t>(std::find(lanes.begin(), lanes.end(), sp.lane) - lanes.begin());
        const double x = kLeft + (sp.start - t_min) / span * pw;
        const double w = std::max(2.0, (sp.end - sp.start) / span * pw);  // an IRQ stays visible
        fmt::format_to(it,
                       "<rect class=\"span\" data-series=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" "
                       "width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>\n",
                       escape(sp.lane), x, kTop + lane_h * static_cast<double>(l) + 4, w,
                       lane_h - 8, colour(l), escape(sp.label));
    }
    fmt::format_to(it,
                   "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}"
                   "</text>\n",
                   kLeft + pw / 2, axis_y + 36, escape(a.x_title));
    return s + "</svg>\n";
}

namespace {

// Log-log axes over whole decades holding [x_lo, x_hi] × [y_lo, y_hi] (all positive).
struct LogGrid {
    double dx0 = 0, dx1 = 1, dy0 = 0, dy1 = 1, pw = 0, ph = 0;
    double px(double x) const { return kLeft + (std::log10(x) - dx0) / (dx1 - dx0) * pw; }
    double py(double y) const { return kTop + ph - (std::log10(y) - dy0) / (dy1 - dy0) * ph; }
};

// The grid's SVG: the opening tag, a line and a label per decade, the axis titles.
std::string log_grid(LogGrid& g, double x_lo, double x_hi, double y_lo, double y_hi,
                     const Axes& a) {
    g.dx0 = std::floor(std::log10(x_lo)), g.dx1 = std::ceil(std::log10(x_hi)) + 1;
    g.dy0 = std::floor(std::log10(y_lo)), g.dy1 = std::ceil(std::log10(y_hi)) + 1;
    g.pw = a.width - kLeft - kRight, g.ph = a.height - kTop - kBottom;
    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        a.width, a.height);
    auto it = std::back_inserter(s);
    for (double d = g.dx0; d <= g.dx1; ++d) {
        fmt::format_to(it,
                       "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>\n",
                       g.px(std::pow(10.0, d)), kTop, kTop + g.ph, kTop + g.ph + 14, d);
    }
    for (double d = g.dy0; d <= g.dy1; ++d) {
        fmt::format_to(it,
                       "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">1e{5}</text>\n",
                       kLeft, kLeft + g.pw, g.py(std::pow(10.0, d)), kLeft - 4,
                       g.py(std::pow(10.0, d)) + 4, d);
    }
    fmt::format_to(it,
                   "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}"
                   "</text>\n<text class=\"axis-title\" transform=\"rotate(-90)\" x=\"{:.1f}\" "
                   "y=\"14\" text-anchor=\"middle\">{}</text>\n",
                   kLeft + g.pw / 2, a.height - 8, escape(a.x_title), -(kTop + g.ph / 2),
                   escape(a.y_title));
    return s;
}

}  // namespace

std::string roofline(const std::vector<Point>& points, double peak_ops, double peak_bytes,
                     const Axes& a) {
    // Decades that hold the points and the ridge (peak_ops / peak_bytes).
    double x_lo = peak_ops / peak_bytes, x_hi = x_lo, y_lo = peak_ops, y_hi = peak_ops;
    std::vector<Point> shown;
    for (const Point& p : points) {
        if (p.x > 0 && p.y > 0) {
            shown.push_back(p);
            x_lo = std::min(x_lo, p.x), x_hi = std::max(x_hi, p.x);
            y_lo = std::min(y_lo, p.y), y_hi = std::max(y_hi, p.y);
        }
    }
    LogGrid g;
    std::string s = log_grid(g, x_lo, x_hi, y_lo, y_hi, a);
    auto it = std::back_inserter(s);
    // The roof: bandwidth-bound up to the ridge, compute-bound after it.
    const double x0 = std::pow(10.0, g.dx0), x1 = std::pow(10.0, g.dx1);
    const double ridge = peak_ops / peak_bytes;
    const double y0 = std::max(std::pow(10.0, g.dy0), peak_bytes * x0);
    const double xs = y0 / peak_bytes;
    fmt::format_to(it,
                   "<polyline class=\"roof\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" "
                   "points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n"
                   "<text x=\"{:.1f}\" y=\"{:.1f}\">peak {:.3g} ops/s</text>\n"
                   "<text x=\"{:.1f}\" y=\"{:.1f}\">{:.3g} bytes/s</text>\n",
                   g.px(xs), g.py(y0), g.px(ridge), g.py(peak_ops), g.px(x1), g.py(peak_ops),
                   g.px(ridge) + 4, g.py(peak_ops) - 6, peak_ops, g.px(xs) + 4, g.py(y0) - 6,
                   peak_bytes);
    for (size_t i = 0; i < shown.size(); ++i) {
        fmt::format_to(it,
                       "<circle class=\"point\" data-item=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" "
                       "r=\"4\" fill=\"{}\"><title>{}: {:.3g} ops/byte, {:.3g} ops/s</title>"
                       "</circle>\n",
                       i, g.px(shown[i].x), g.py(shown[i].y), colour(0), escape(shown[i].label),
                       shown[i].x, shown[i].y);
    }
    return s + "</svg>\n";
}

std::string front(const std::vector<Point>& points, const std::vector<bool>& on_front,
                  const Axes& a) {
    double x_lo = 1, x_hi = 1, y_lo = 1, y_hi = 1;
    bool first = true;
    for (const Point& p : points) {
        if (p.x > 0 && p.y > 0) {
            x_lo = first ? p.x : std::min(x_lo, p.x), x_hi = first ? p.x : std::max(x_hi, p.x);
            y_lo = first ? p.y : std::min(y_lo, p.y), y_hi = first ? p.y : std::max(y_hi, p.y);
            first = false;
        }
    }
    LogGrid g;
    std::string s = log_grid(g, x_lo, x_hi, y_lo, y_hi, a);
    auto it = std::back_inserter(s);
    for (size_t i = 0; i < points.size(); ++i) {
        const Point& p = points[i];
        if (p.x <= 0 || p.y <= 0) {
            continue;
        }
        const bool f = i < on_front.size() && on_front[i];
        fmt::format_to(it,
                       "<circle class=\"{}\" data-item=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" "
                       "fill=\"{}\"{}><title>{}: {:g}, {:g}</title></circle>\n",
                       f ? "front" : "point", i, g.px(p.x), g.py(p.y), f ? 4 : 2.5,
                       f ? colour(1) : colour(0), f ? "" : " fill-opacity=\"0.35\"",
                       escape(p.label), p.x, p.y);
    }
    return s + "</svg>\n";
}

}  // namespace npu::report
