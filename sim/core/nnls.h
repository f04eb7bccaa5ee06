// Non-negative least squares: x ≥ 0 minimising ‖A·x − b‖₂, by Lawson and Hanson's active-set
// method ("Solving Least Squares Problems", 1974, ch. 23), the unconstrained steps solved by
// Eigen's column-pivoting QR. For the small, dense fits of `npusim calibrate` (tens of rows, a
// handful of unknowns). Pure C++.
#pragma once

#include <Eigen/Dense>

namespace npu::sim {

// Returns x ≥ 0; stops after 30 · cols iterations (Lawson–Hanson converges in far fewer).
Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b);

}  // namespace npu::sim
