// Overload{lambdas...}: one callable with an operator() per lambda, for std::visit over a variant
// (one branch per alternative, checked by the compiler). Pure C++.
#pragma once

namespace npu::sim {

template <class... F>
struct Overload : F... {
    using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

}  // namespace npu::sim
