#include "sim/report/svg.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

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
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
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
    double y_max = 0;
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
        if (labels.size() <= 40) {  // labels fit under the bars
            fmt::format_to(it, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                           x + bw / 2, kTop + ph + 14, escape(labels[i]));
        }
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
        const double w = std::max(0.5, (sp.end - sp.start) / span * pw);
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

}  // namespace npu::report
