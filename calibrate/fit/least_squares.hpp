// Bounded nonlinear least squares for the calibration fits, on Eigen's Levenberg-Marquardt
// (the MINPACK port in unsupported/Eigen/NonLinearOptimization) with a central-difference
// Jacobian. Every fit of calibrate/fit/ goes through fit_least_squares() so that they all report
// the same figures: parameters with 1-sigma uncertainties, R^2, median and worst relative error.
//
// What is minimised is the sum of squared RELATIVE residuals, predicted/measured - 1: fathom's
// acceptance criteria are relative errors, and the measurements span decades (a 1 KiB fio run and
// a 1 MiB one, a 1024^3 GEMM and a 32768^3 one), which absolute residuals would weigh by size.
//
// Bounds are enforced by a smooth change of variables (as MINUIT and lmfit do), never by
// clamping, so the optimiser sees a smooth objective and a fitted value can never leave its box:
//   - both bounds:   x = lower + (upper - lower) * (sin(u) + 1) / 2; in log space
//                    (log x = log lower + ...) when 0 < lower and upper/lower >= 1000, so that a
//                    parameter spanning decades (a bandwidth, an IOPS) is fitted on a log scale;
//   - lower only:    x = lower + s * (sqrt(u^2 + 1) - 1); upper only: the mirror image;
//   - neither:       x = s * u;
// with s a scale taken from the start value, so that every internal variable u is of order 1.
// A start value exactly on a bound is moved a little inside it (at the bound the transform's
// slope is 0 and the parameter could never move). The uncertainties are computed in the
// parameters' own units, from the Jacobian with respect to x, not u.
//
// Deterministic: no randomness, a fixed order of evaluation. Multi-start is the caller's business.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

struct FitParameter {
  std::string name;  // "alpha_ns", "gemm_max", ...
  double value = 0;  // start value in, fitted value out
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  bool fixed = false;  // kept at `value`, not fitted, uncertainty 0
  std::string unit;    // for reports: "ns", "", "B"
  // The smallest change the model notices (1 for a time the model rounds to whole ns; 0: none).
  // The Jacobian's difference step moves the parameter by at least kStepsPerResolution of these.
  double resolution = 0;
};

inline constexpr double kStepsPerResolution = 50;

struct FitOptions {
  int max_iterations = 200;  // Levenberg-Marquardt steps (Jacobian evaluations)
  double relative_tolerance = 1e-10;
};

struct FitResult {
  std::vector<FitParameter> parameters;  // in the input order, values fitted
  // 1-sigma, same order; 0 for fixed; NaN when not identifiable: a direction of J^T J the data
  // do not constrain (a parameter no point depends on, or two that only act together), or no
  // degree of freedom left (as many points as free parameters).
  std::vector<double> uncertainty;
  std::vector<double> predicted;       // model at the fitted parameters, one per measured point
  std::vector<double> relative_error;  // (predicted - measured) / measured
  // 1 - SS_res/SS_tot on the measured values themselves; NaN when SS_tot is 0 (fewer than two
  // distinct measured values).
  double r_squared = 0;
  double median_abs_rel_error = 0, max_abs_rel_error = 0;
  int iterations = 0;
  bool converged = false;
  std::string message;

  // The fitted value of the parameter `name`; std::out_of_range naming it when there is none.
  double value(std::string_view name) const;
  // Its 1-sigma uncertainty; std::out_of_range as value().
  double sigma(std::string_view name) const;
};

// model(params) returns one prediction per measured point (params in FitParameter order, fixed
// ones included).
using FitModel = std::function<std::vector<double>(const std::vector<double>& params)>;

// Minimises the sum of squared relative residuals (predicted/measured - 1).
// Uncertainty: sqrt(diag(s^2 (J^T J)^-1)), s^2 = SSR/(n - p_free), J of the relative residuals
// with respect to the free parameters (a pseudo-inverse: see FitResult::uncertainty for NaN).
// std::invalid_argument when a measured value is not positive and finite, when there are fewer
// points than free parameters, when a parameter's bounds are empty or its start value outside
// them, or when the model returns the wrong number of predictions. A prediction that is not
// finite at a trial point counts as a huge residual, so the optimiser steps back from it.
FitResult fit_least_squares(const FitModel& model, const std::vector<double>& measured,
                            std::vector<FitParameter> parameters, const FitOptions& options = {});

// Stats of a prediction without fitting (for held-out points): fills predicted, relative_error,
// r_squared, median/max; parameters and uncertainty stay empty, converged is true.
// std::invalid_argument when the sizes differ, a list is empty or a measured value is not
// positive and finite.
FitResult evaluate(const std::vector<double>& predicted, const std::vector<double>& measured);

// The sum of squared relative residuals of a result (what fit_least_squares() minimised).
double sum_squared_relative(const FitResult& result);

}  // namespace fathom::calib
