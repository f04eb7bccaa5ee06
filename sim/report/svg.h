// Charts as inline SVG for the HTML reports: stacked bars (one group per item, one segment per
// series) and a timeline of spans on lanes, each with axis titles (units) and ticks. Every mark
// carries data attributes (class, data-item, data-series) so tests and readers can find them.
// No script, nothing loaded from elsewhere. Pure C++.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npu::report {

// Text for HTML/SVG content and attribute values.
std::string escape(const std::string& s);

struct Series {
    std::string name;
    std::vector<double> values;  // one per item
};

struct Axes {
    Axes(std::string x, std::string y, double w = 960, double h = 320)
        : x_title(std::move(x))
        , y_title(std::move(y))
        , width(w)
        , height(h) {}
    std::string x_title, y_title;  // with units, e.g. "time (µs)"
    double width, height;
    // Bar charts: an optional horizontal line (a tolerance, class "tolerance") and an item to
    // mark with a triangle above its bar (class "marked").
    double line = -1;
    std::string line_label;
    long marked_item = -1;
};

// One bar per item (`labels`), stacked by series; a legend names the series.
std::string stacked_bars(const std::vector<std::string>& labels, const std::vector<Series>& series,
                         const Axes& axes);

struct Span {
    std::string lane;   // e.g. "KPU", "CPU", "DMA"
    std::string label;  // shown on hover (title)
    double start = 0, end = 0;
};

// Lanes in order of first appearance, time on x.
std::string timeline(const std::vector<Span>& spans, const Axes& axes);

struct Point {
    std::string label;
    double x = 0, y = 0;  // e.g. operational intensity (ops/byte), attained throughput (ops/s)
};

// A roofline on log-log axes: the roof min(peak_ops, peak_bytes · x) and one point per item.
// Points with a non-positive coordinate are left out (they have no place on log axes).
std::string roofline(const std::vector<Point>& points, double peak_ops, double peak_bytes,
                     const Axes& axes);

// A throughput/resource front on log-log axes: every point (x, y > 0; others left out), the ones
// `on_front` marks drawn larger in another colour (class "front", the others "point").
std::string front(const std::vector<Point>& points, const std::vector<bool>& on_front,
                  const Axes& axes);

// The spread of a measure at one value of a swept parameter: min, median and max over every
// configuration with that value.
struct Range {
    std::string label;  // the parameter value
    double min = 0, median = 0, max = 0;
    size_t count = 0;  // configurations behind it
};

// One whisker (min..max, class "range") with a dot at the median (class "median") per value, on
// a linear y axis from 0.
std::string ranges(const std::vector<Range>& values, const Axes& axes);

// A fill colour for series or lane i (a fixed, colour-blind friendly palette).
const char* colour(size_t i);

}  // namespace npu::report
