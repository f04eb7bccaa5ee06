// Non-negative least squares against problems solved by hand.
#include <gtest/gtest.h>

#include "sim/core/nnls.h"

namespace npu::test {
namespace {

TEST(Nnls, AnInteriorSolutionIsTheLeastSquaresOne) {
    // y = 2 + 3 t at t = 0, 1, 2, 3 exactly: x = (2, 3).
    Eigen::MatrixXd a(4, 2);
    a << 1, 0, 1, 1, 1, 2, 1, 3;
    Eigen::VectorXd b(4);
    b << 2, 5, 8, 11;
    const Eigen::VectorXd x = sim::nnls(a, b);
    EXPECT_NEAR(x(0), 2, 1e-12);
    EXPECT_NEAR(x(1), 3, 1e-12);
}

TEST(Nnls, ANegativeOptimumIsClampedAndTheRestRefitted) {
    // b = (1, 2, 0) against columns (1,0,0), (0,1,0), (1,1,1)·: unconstrained x = (1, 2, 0) would
    // be exact; make the third column pull negative: b = (3, 4, -2): unconstrained (5, 6, -2).
    // With x₃ = 0 the best is x = (3, 4, 0), residual (0, 0, -2).
    Eigen::MatrixXd a(3, 3);
    a << 1, 0, 1, 0, 1, 1, 0, 0, 1;
    Eigen::VectorXd b(3);
    b << 3, 4, -2;
    const Eigen::VectorXd x = sim::nnls(a, b);
    EXPECT_NEAR(x(0), 3, 1e-12);
    EXPECT_NEAR(x(1), 4, 1e-12);
    EXPECT_EQ(x(2), 0);
}

TEST(Nnls, AllNegativeGivesZero) {
    Eigen::MatrixXd a(2, 1);
    a << 1, 1;
    Eigen::VectorXd b(2);
    b << -1, -3;
    EXPECT_EQ(sim::nnls(a, b)(0), 0);
}

}  // namespace
}  // namespace npu::test
