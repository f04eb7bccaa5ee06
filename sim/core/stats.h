// Statistics: typed counters, averages, histograms and formulas, each with a name, a unit and a
// description, registered once in a StatGroup and dumped as JSON in registration order (so that
// report diffs stay stable). Incrementing a counter is an integer add. Pure C++, no SystemC.
// Every counter a report shows has its formula in docs/counters.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::sim {

class StatBase {
public:
    StatBase(std::string name, std::string unit, std::string desc);
    virtual ~StatBase() = default;
    StatBase(const StatBase&) = delete;
    StatBase& operator=(const StatBase&) = delete;

    const std::string& name() const { return m_name; }
    const std::string& unit() const { return m_unit; }
    const std::string& desc() const { return m_desc; }
    virtual void reset() = 0;
    // {"value": ..., "unit": ..., "desc": ...} (histograms add their buckets).
    virtual nlohmann::ordered_json to_json() const = 0;

private:
    std::string m_name;
    std::string m_unit;
    std::string m_desc;
};

class Counter : public StatBase {
public:
    using StatBase::StatBase;
    Counter& operator+=(uint64_t n) {
        m_value += n;
        return *this;
    }
    Counter& operator++() {
        ++m_value;
        return *this;
    }
    uint64_t value() const { return m_value; }
    void reset() override { m_value = 0; }
    nlohmann::ordered_json to_json() const override;

private:
    uint64_t m_value = 0;
};

// Mean of sampled values (plus count, min and max).
class Average : public StatBase {
public:
    using StatBase::StatBase;
    void sample(double v);
    uint64_t count() const { return m_count; }
    double mean() const { return m_count == 0 ? 0.0 : m_sum / static_cast<double>(m_count); }
    double min() const { return m_min; }
    double max() const { return m_max; }
    void reset() override;
    nlohmann::ordered_json to_json() const override;

private:
    uint64_t m_count = 0;
    double m_sum = 0;
    double m_min = std::numeric_limits<double>::infinity();
    double m_max = -std::numeric_limits<double>::infinity();
};

// Linear buckets [lo + i·width, lo + (i+1)·width) for i < n, plus underflow and overflow.
class Histogram : public StatBase {
public:
    Histogram(std::string name, std::string unit, std::string desc, double lo, double width,
              size_t buckets);
    void sample(double v);
    const std::vector<uint64_t>& buckets() const { return m_buckets; }
    uint64_t underflow() const { return m_underflow; }
    uint64_t overflow() const { return m_overflow; }
    uint64_t count() const { return m_count; }
    void reset() override;
    nlohmann::ordered_json to_json() const override;

private:
    double m_lo;
    double m_width;
    std::vector<uint64_t> m_buckets;
    uint64_t m_underflow = 0;
    uint64_t m_overflow = 0;
    uint64_t m_count = 0;
    double m_sum = 0;
};

// A value computed from other stats when read, e.g. utilization = macs / (cycles · lanes).
// `formula` is the human-readable expression shown in the JSON and the docs.
class Formula : public StatBase {
public:
    Formula(std::string name, std::string unit, std::string desc, std::string formula,
            std::function<double()> fn);
    double value() const { return m_fn(); }
    const std::string& formula() const { return m_formula; }
    void reset() override {}
    nlohmann::ordered_json to_json() const override;

private:
    std::string m_formula;
    std::function<double()> m_fn;
};

// A named set of stats and sub-groups. Names are unique within a group (a duplicate is our bug).
class StatGroup {
public:
    explicit StatGroup(std::string name);
    StatGroup(const StatGroup&) = delete;
    StatGroup& operator=(const StatGroup&) = delete;

    const std::string& name() const { return m_name; }
    Counter& counter(std::string name, std::string unit, std::string desc);
    Average& average(std::string name, std::string unit, std::string desc);
    Histogram& histogram(std::string name, std::string unit, std::string desc, double lo,
                         double width, size_t buckets);
    Formula& formula(std::string name, std::string unit, std::string desc, std::string formula,
                     std::function<double()> fn);
    StatGroup& group(std::string name);
    // Attaches a group owned elsewhere (a model's own stats); it must outlive this group.
    void attach(StatGroup& child);

    const StatBase* find(const std::string& name) const;
    void reset();
    // {"stat": {...}, "subgroup": {...}} in registration order.
    nlohmann::ordered_json to_json() const;

private:
    void check_unique(const std::string& name) const;
    template <typename S, typename... Args>
    S& add(Args&&... args);

    std::string m_name;
    struct Entry {
        StatBase* stat = nullptr;
        StatGroup* group = nullptr;
    };
    std::vector<Entry> m_order;
    std::vector<std::unique_ptr<StatBase>> m_stats;
    std::vector<std::unique_ptr<StatGroup>> m_owned_groups;
};

}  // namespace npu::sim
