#include "sim/core/stats.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace npu::sim {

StatBase::StatBase(std::string name, std::string unit, std::string desc)
    : m_name(std::move(name))
    , m_unit(std::move(unit))
    , m_desc(std::move(desc)) {
}

namespace {
nlohmann::ordered_json base_json(const StatBase& s) {
    nlohmann::ordered_json j;
    j["unit"] = s.unit();
    j["desc"] = s.desc();
    return j;
}
// JSON has no infinity/NaN: an empty average reports null min/max.
nlohmann::ordered_json finite_or_null(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}
}  // namespace

nlohmann::ordered_json Counter::to_json() const {
    nlohmann::ordered_json j;
    j["value"] = m_value;
    j.update(base_json(*this));
    return j;
}

void Average::sample(double v) {
    ++m_count;
    m_sum += v;
    m_min = std::min(m_min, v);
    m_max = std::max(m_max, v);
}

void Average::reset() {
    m_count = 0;
    m_sum = 0;
    m_min = std::numeric_limits<double>::infinity();
    m_max = -std::numeric_limits<double>::infinity();
}

nlohmann::ordered_json Average::to_json() const {
    nlohmann::ordered_json j;
    j["value"] = mean();
    j["count"] = m_count;
    j["min"] = finite_or_null(m_min);
    j["max"] = finite_or_null(m_max);
    j.update(base_json(*this));
    return j;
}

Histogram::Histogram(std::string name, std::string unit, std::string desc, double lo, double width,
                     size_t buckets)
    : StatBase(std::move(name), std::move(unit), std::move(desc))
    , m_lo(lo)
    , m_width(width)
    , m_buckets(buckets, 0) {
    NPU_ASSERT(width > 0 && buckets > 0, "histogram {} needs width > 0 and buckets > 0",
               this->name());
}

void Histogram::sample(double v) {
    ++m_count;
    m_sum += v;
    if (v < m_lo) {
        ++m_underflow;
        return;
    }
    const double idx = std::floor((v - m_lo) / m_width);
    if (idx >= static_cast<double>(m_buckets.size())) {
        ++m_overflow;
        return;
    }
    ++m_buckets[static_cast<size_t>(idx)];
}

void Histogram::reset() {
    std::fill(m_buckets.begin(), m_buckets.end(), 0);
    m_underflow = m_overflow = m_count = 0;
    m_sum = 0;
}

nlohmann::ordered_json Histogram::to_json() const {
    nlohmann::ordered_json j;
    j["count"] = m_count;
    j["mean"] = m_count == 0 ? 0.0 : m_sum / static_cast<double>(m_count);
    j["lo"] = m_lo;
    j["width"] = m_width;
    j["buckets"] = m_buckets;
    j["underflow"] = m_underflow;
    j["overflow"] = m_overflow;
    j.update(base_json(*this));
    return j;
}

Formula::Formula(std::string name, std::string unit, std::string desc, std::string formula,
                 std::function<double()> fn)
    : StatBase(std::move(name), std::move(unit), std::move(desc))
    , m_formula(std::move(formula))
    , m_fn(std::move(fn)) {
}

nlohmann::ordered_json Formula::to_json() const {
    nlohmann::ordered_json j;
    j["value"] = finite_or_null(m_fn());
    j["formula"] = m_formula;
    j.update(base_json(*this));
    return j;
}

StatGroup::StatGroup(std::string name)
    : m_name(std::move(name)) {
}

void StatGroup::check_unique(const std::string& name) const {
    for (const Entry& e : m_order) {
        const std::string& other = e.stat != nullptr ? e.stat->name() : e.group->name();
        NPU_ASSERT(other != name, "stat group {}: '{}' registered twice", m_name, name);
    }
}

template <typename S, typename... Args>
S& StatGroup::add(Args&&... args) {
    auto stat = std::make_unique<S>(std::forward<Args>(args)...);
    check_unique(stat->name());
    S& ref = *stat;
    m_order.push_back({stat.get(), nullptr});
    m_stats.push_back(std::move(stat));
    return ref;
}

Counter& StatGroup::counter(std::string name, std::string unit, std::string desc) {
    return add<Counter>(std::move(name), std::move(unit), std::move(desc));
}

Average& StatGroup::average(std::string name, std::string unit, std::string desc) {
    return add<Average>(std::move(name), std::move(unit), std::move(desc));
}

Histogram& StatGroup::histogram(std::string name, std::string unit, std::string desc, double lo,
                                double width, size_t buckets) {
    return add<Histogram>(std::move(name), std::move(unit), std::move(desc), lo, width, buckets);
}

Formula& StatGroup::formula(std::string name, std::string unit, std::string desc,
                            std::string formula, std::function<double()> fn) {
    return add<Formula>(std::move(name), std::move(unit), std::move(desc), std::move(formula),
                        std::move(fn));
}

StatGroup& StatGroup::group(std::string name) {
    check_unique(name);
    m_owned_groups.push_back(std::make_unique<StatGroup>(std::move(name)));
    m_order.push_back({nullptr, m_owned_groups.back().get()});
    return *m_owned_groups.back();
}

void StatGroup::attach(StatGroup& child) {
    check_unique(child.name());
    m_order.push_back({nullptr, &child});
}

const StatBase* StatGroup::find(const std::string& name) const {
    for (const Entry& e : m_order) {
        if (e.stat != nullptr && e.stat->name() == name) {
            return e.stat;
        }
    }
    return nullptr;
}

void StatGroup::reset() {
    for (const Entry& e : m_order) {
        if (e.stat != nullptr) {
            e.stat->reset();
        } else {
            e.group->reset();
        }
    }
}

nlohmann::ordered_json StatGroup::to_json() const {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const Entry& e : m_order) {
        if (e.stat != nullptr) {
            j[e.stat->name()] = e.stat->to_json();
        } else {
            j[e.group->name()] = e.group->to_json();
        }
    }
    return j;
}

}  // namespace npu::sim
