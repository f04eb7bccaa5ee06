#include "sim/core/nnls.h"

#include <limits>
#include <vector>

namespace npu::sim {

namespace {

// Least squares over the columns in `passive` (the others held at 0).
Eigen::VectorXd solve_on(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                         const std::vector<bool>& passive) {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
        if (passive[static_cast<size_t>(j)]) {
            cols.push_back(j);
        }
    }
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (size_t k = 0; k < cols.size(); ++k) {
        sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
    }
    const Eigen::VectorXd zs = sub.colPivHouseholderQr().solve(b);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(a.cols());
    for (size_t k = 0; k < cols.size(); ++k) {
        z(cols[k]) = zs(static_cast<Eigen::Index>(k));
    }
    return z;
}

}  // namespace

Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
    const Eigen::Index n = a.cols();
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<bool> passive(static_cast<size_t>(n), false);
    const double tol = 1e-12 * std::max(1.0, a.cwiseAbs().maxCoeff());
    for (Eigen::Index iter = 0; iter < 30 * std::max<Eigen::Index>(n, 1); ++iter) {
        const Eigen::VectorXd w = a.transpose() * (b - a * x);  // the negative gradient
        Eigen::Index best = -1;
        for (Eigen::Index j = 0; j < n; ++j) {
            if (!passive[static_cast<size_t>(j)] && w(j) > tol && (best < 0 || w(j) > w(best))) {
                best = j;
            }
        }
        if (best < 0) {
            break;  // Kuhn–Tucker conditions hold
        }
        passive[static_cast<size_t>(best)] = true;
        for (;;) {  // the inner loop: step back until the passive solution is feasible
            const Eigen::VectorXd z = solve_on(a, b, passive);
            double alpha = std::numeric_limits<double>::infinity();
            for (Eigen::Index j = 0; j < n; ++j) {
                if (passive[static_cast<size_t>(j)] && z(j) <= 0) {
                    const double d = x(j) - z(j);
                    alpha = std::min(alpha, d > 0 ? x(j) / d : 0.0);
                }
            }
            if (alpha == std::numeric_limits<double>::infinity()) {
                x = z;
                break;
            }
            x += alpha * (z - x);
            for (Eigen::Index j = 0; j < n; ++j) {
                if (passive[static_cast<size_t>(j)] && x(j) <= tol) {
                    passive[static_cast<size_t>(j)] = false;
                    x(j) = 0;
                }
            }
        }
    }
    return x;
}

}  // namespace npu::sim
