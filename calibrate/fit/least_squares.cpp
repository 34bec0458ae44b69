#include "calibrate/fit/least_squares.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <unsupported/Eigen/NonLinearOptimization>
#include <utility>
#include <vector>

#include "sim/interrupt/interrupt.hpp"

namespace fathom::calib {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A trial point where the model gives no finite prediction: a residual this large makes the
// optimiser reject the step instead of stopping.
constexpr double kHugeResidual = 1e10;
// Bounds whose ratio is at least this are fitted on a log scale.
constexpr double kLogRatio = 1e3;
// How far inside a bound a start value on it is moved, in the internal variable u.
constexpr double kInsideBound = 1e-2;
// A singular value of the column-scaled Jacobian below this fraction of the largest one spans a
// direction the data do not constrain.
constexpr double kRankTolerance = 1e-8;
// A parameter whose component in that null space squares to more than this is not identifiable.
constexpr double kNullComponent = 1e-6;

// The change of variables of one free parameter (least_squares.hpp explains them).
class Transform {
 public:
  Transform(double lower, double upper, double start) : lower_(lower), upper_(upper) {
    if (std::isfinite(lower) && std::isfinite(upper)) {
      kind_ = lower > 0 && upper / lower >= kLogRatio ? Kind::both_log : Kind::both;
    } else if (std::isfinite(lower)) {
      kind_ = Kind::lower;
      scale_ = scale_of(start - lower, lower);
    } else if (std::isfinite(upper)) {
      kind_ = Kind::upper;
      scale_ = scale_of(upper - start, upper);
    } else {
      kind_ = Kind::none;
      scale_ = scale_of(start, 0);
    }
  }

  double to_external(double u) const {
    switch (kind_) {
      case Kind::both:
        return std::clamp(lower_ + (upper_ - lower_) * (std::sin(u) + 1) / 2, lower_, upper_);
      case Kind::both_log: {
        const double a = std::log(lower_), b = std::log(upper_);
        return std::clamp(std::exp(a + (b - a) * (std::sin(u) + 1) / 2), lower_, upper_);
      }
      case Kind::lower:
        return lower_ + scale_ * (std::sqrt(u * u + 1) - 1);
      case Kind::upper:
        return upper_ - scale_ * (std::sqrt(u * u + 1) - 1);
      case Kind::none:
        return scale_ * u;
    }
    return u;
  }

  double to_internal(double x) const {
    switch (kind_) {
      case Kind::both:
        return inside_sine(2 * (x - lower_) / (upper_ - lower_) - 1);
      case Kind::both_log: {
        const double a = std::log(lower_), b = std::log(upper_);
        return inside_sine(2 * (std::log(x) - a) / (b - a) - 1);
      }
      case Kind::lower:
        return std::max(kInsideBound, std::sqrt(std::pow((x - lower_) / scale_ + 1, 2) - 1));
      case Kind::upper:
        return std::max(kInsideBound, std::sqrt(std::pow((upper_ - x) / scale_ + 1, 2) - 1));
      case Kind::none:
        return x / scale_;
    }
    return x;
  }

  // The step of the Jacobian in the parameter's own units, where its value is 0.
  double typical() const {
    if (kind_ == Kind::both || kind_ == Kind::both_log) return upper_ - lower_;
    return scale_;
  }

 private:
  enum class Kind { both, both_log, lower, upper, none };

  static double scale_of(double distance, double reference) {
    const double s = std::max(std::abs(distance), std::abs(reference));
    return s > 0 && std::isfinite(s) ? s : 1.0;
  }
  static double inside_sine(double s) {
    return std::clamp(std::asin(std::clamp(s, -1.0, 1.0)), -kPi / 2 + kInsideBound, kPi / 2 - kInsideBound);
  }

  Kind kind_ = Kind::none;
  double lower_, upper_;
  double scale_ = 1;
};

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

void check_measured(const std::vector<double>& measured) {
  if (measured.empty()) throw std::invalid_argument("least-squares fit: no measured values");
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (!std::isfinite(measured[i]) || measured[i] <= 0) {
      throw std::invalid_argument("least-squares fit: measured value " + std::to_string(i) +
                                  " must be positive and finite, found " + std::to_string(measured[i]));
    }
  }
}

// Fills the statistics of `r` from its predictions.
void fill_stats(FitResult& r, const std::vector<double>& measured) {
  const std::size_t n = measured.size();
  r.relative_error.assign(n, 0);
  std::vector<double> abs_errors(n);
  double mean = 0;
  for (double m : measured) mean += m / static_cast<double>(n);
  double ss_res = 0, ss_tot = 0;
  r.max_abs_rel_error = 0;
  for (std::size_t i = 0; i < n; ++i) {
    r.relative_error[i] = (r.predicted[i] - measured[i]) / measured[i];
    abs_errors[i] = std::abs(r.relative_error[i]);
    r.max_abs_rel_error = std::max(r.max_abs_rel_error, abs_errors[i]);
    ss_res += (r.predicted[i] - measured[i]) * (r.predicted[i] - measured[i]);
    ss_tot += (measured[i] - mean) * (measured[i] - mean);
  }
  r.median_abs_rel_error = median_of(abs_errors);
  r.r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : kNaN;
}

// The fit's state: the model with the fixed parameters filled in and the free ones mapped from
// the internal variables.
class Problem {
 public:
  Problem(const FitModel& model, const std::vector<double>& measured, const std::vector<FitParameter>& parameters)
      : model_(model), measured_(measured), values_(parameters.size()) {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      values_[i] = parameters[i].value;
      if (!parameters[i].fixed) {
        free_.push_back(i);
        transforms_.emplace_back(parameters[i].lower, parameters[i].upper, parameters[i].value);
        lower_.push_back(parameters[i].lower);
        upper_.push_back(parameters[i].upper);
        min_step_.push_back(kStepsPerResolution * parameters[i].resolution);
      }
    }
  }

  std::size_t points() const { return measured_.size(); }
  std::size_t free_count() const { return free_.size(); }

  std::vector<double> predict(const std::vector<double>& all) const {
    sim::poll_interrupt();  // a fit evaluates its model thousands of times: stop between two
    std::vector<double> p = model_(all);
    if (p.size() != measured_.size()) {
      throw std::invalid_argument("least-squares fit: the model returned " + std::to_string(p.size()) +
                                  " predictions for " + std::to_string(measured_.size()) + " measured values");
    }
    return p;
  }

  // All parameters (fixed and free) at the internal point u.
  std::vector<double> external(const Eigen::VectorXd& u) const {
    std::vector<double> all = values_;
    for (std::size_t j = 0; j < free_.size(); ++j) all[free_[j]] = transforms_[j].to_external(u[Eigen::Index(j)]);
    return all;
  }

  Eigen::VectorXd internal() const {
    Eigen::VectorXd u(Eigen::Index(free_.size()));
    for (std::size_t j = 0; j < free_.size(); ++j) u[Eigen::Index(j)] = transforms_[j].to_internal(values_[free_[j]]);
    return u;
  }

  // Relative residuals at the parameters `all`.
  Eigen::VectorXd residuals(const std::vector<double>& all) const {
    const std::vector<double> p = predict(all);
    Eigen::VectorXd r(Eigen::Index(p.size()));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double ri = p[i] / measured_[i] - 1;
      r[Eigen::Index(i)] = std::isfinite(ri) ? ri : kHugeResidual;
    }
    return r;
  }

  // Eigen's functor interface.
  int values() const { return static_cast<int>(measured_.size()); }
  int operator()(const Eigen::VectorXd& u, Eigen::VectorXd& fvec) const {
    fvec = residuals(external(u));
    return 0;
  }
  // Central differences in u with a relative step (at least the step at |u| = 1: the internal
  // variables are of order 1 by construction).
  int df(const Eigen::VectorXd& u, Eigen::MatrixXd& fjac) const {
    const double step = std::cbrt(std::numeric_limits<double>::epsilon());
    fjac.resize(Eigen::Index(measured_.size()), u.size());
    for (Eigen::Index j = 0; j < u.size(); ++j) {
      double h = step * std::max(std::abs(u[j]), 1.0);
      // A parameter the model resolves coarsely (whole ns) needs a step that moves it by several
      // of its quanta, or the difference is rounding noise: widen h until it does.
      const std::size_t jj = std::size_t(j);
      const auto moved = [&](double hh) {
        return std::abs(transforms_[jj].to_external(u[j] + hh) - transforms_[jj].to_external(u[j] - hh)) / 2;
      };
      while (min_step_[jj] > 0 && moved(h) < min_step_[jj] && h < 0.5) h *= 2;
      Eigen::VectorXd up = u, down = u;
      up[j] += h;
      down[j] -= h;
      fjac.col(j) = (residuals(external(up)) - residuals(external(down))) / (2 * h);
    }
    return 0;
  }

  // The Jacobian of the relative residuals with respect to the free parameters in their own
  // units, at `all`: central differences with a relative step, one-sided where a bound is nearer
  // than the step (the model need not be defined outside the box).
  Eigen::MatrixXd external_jacobian(const std::vector<double>& all) const {
    const double step = std::cbrt(std::numeric_limits<double>::epsilon());
    Eigen::MatrixXd J(Eigen::Index(measured_.size()), Eigen::Index(free_.size()));
    for (std::size_t j = 0; j < free_.size(); ++j) {
      const std::size_t i = free_[j];
      const double x = all[i];
      const double h = std::max(step * (x != 0 ? std::abs(x) : transforms_[j].typical()), min_step_[j]);
      double hi = x + h, lo = x - h;
      if (hi > upper_[j]) hi = x;
      if (lo < lower_[j]) lo = x;
      std::vector<double> a = all, b = all;
      a[i] = hi;
      b[i] = lo;
      J.col(Eigen::Index(j)) = hi > lo ? Eigen::VectorXd((residuals(a) - residuals(b)) / (hi - lo))
                                       : Eigen::VectorXd::Zero(Eigen::Index(measured_.size()));
    }
    return J;
  }

  const std::vector<std::size_t>& free_indices() const { return free_; }

 private:
  const FitModel& model_;
  const std::vector<double>& measured_;
  std::vector<double> values_;
  std::vector<std::size_t> free_;
  std::vector<Transform> transforms_;
  std::vector<double> lower_, upper_;
  std::vector<double> min_step_;  // the smallest difference step in the parameter's own units
};

// 1-sigma uncertainties of the free parameters from the Jacobian J (n x p) and the residual sum
// of squares: the pseudo-inverse of J^T J via the SVD of J with its columns scaled to unit norm
// (the parameters' units differ by many decades), NaN for parameters in its null space.
std::vector<double> uncertainties(const Eigen::MatrixXd& J, double ssr, std::size_t dof) {
  const Eigen::Index p = J.cols();
  std::vector<double> sigma(std::size_t(p), kNaN);
  if (dof == 0 || p == 0) return sigma;
  const double s2 = ssr / static_cast<double>(dof);
  Eigen::VectorXd norms = J.colwise().norm().transpose();
  std::vector<bool> zero(std::size_t(p), false);
  Eigen::MatrixXd scaled = J;
  for (Eigen::Index j = 0; j < p; ++j) {
    zero[std::size_t(j)] = !(norms[j] > 0) || !std::isfinite(norms[j]);
    scaled.col(j) = zero[std::size_t(j)] ? Eigen::VectorXd::Zero(J.rows()) : Eigen::VectorXd(J.col(j) / norms[j]);
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled, Eigen::ComputeFullV);
  const Eigen::VectorXd& sv = svd.singularValues();
  const Eigen::MatrixXd& V = svd.matrixV();
  const double largest = sv.size() > 0 ? sv[0] : 0;
  for (Eigen::Index i = 0; i < p; ++i) {
    if (zero[std::size_t(i)]) continue;
    double null_part = 0, variance = 0;
    for (Eigen::Index k = 0; k < p; ++k) {
      const double s = k < sv.size() ? sv[k] : 0;
      if (s <= kRankTolerance * largest) {
        null_part += V(i, k) * V(i, k);
      } else {
        variance += V(i, k) * V(i, k) / (s * s);
      }
    }
    if (null_part > kNullComponent) continue;
    sigma[std::size_t(i)] = std::sqrt(s2 * variance) / norms[i];
  }
  return sigma;
}

std::string status_text(Eigen::LevenbergMarquardtSpace::Status status) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (status) {
    case RelativeReductionTooSmall:
      return "converged: the relative reduction of the sum of squares is below the tolerance";
    case RelativeErrorTooSmall:
      return "converged: the relative change of the parameters is below the tolerance";
    case RelativeErrorAndReductionTooSmall:
      return "converged: the sum of squares and the parameters both changed less than the tolerance";
    case CosinusTooSmall:
      return "converged: the residuals are orthogonal to the Jacobian (a zero gradient)";
    case FtolTooSmall:
      return "converged to machine precision: no further reduction of the sum of squares is possible";
    case XtolTooSmall:
      return "converged to machine precision: no further improvement of the parameters is possible";
    case GtolTooSmall:
      return "converged to machine precision: the residuals are orthogonal to the Jacobian";
    case TooManyFunctionEvaluation:
      return "not converged: too many function evaluations";
    case ImproperInputParameters:
      return "not converged: improper input to the optimiser";
    default:
      return "not converged: stopped";
  }
}

}  // namespace

double FitResult::value(std::string_view name) const {
  for (const FitParameter& p : parameters) {
    if (p.name == name) return p.value;
  }
  std::string names;
  for (const FitParameter& p : parameters) names += (names.empty() ? "" : ", ") + p.name;
  throw std::out_of_range("fit result: no parameter named \"" + std::string(name) +
                          "\" (parameters: " + (names.empty() ? "none" : names) + ")");
}

double FitResult::sigma(std::string_view name) const {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].name == name) return i < uncertainty.size() ? uncertainty[i] : kNaN;
  }
  (void)value(name);  // throws naming it
  return kNaN;
}

double sum_squared_relative(const FitResult& result) {
  double s = 0;
  for (double e : result.relative_error) s += e * e;
  return s;
}

FitResult evaluate(const std::vector<double>& predicted, const std::vector<double>& measured) {
  check_measured(measured);
  if (predicted.size() != measured.size()) {
    throw std::invalid_argument("evaluate: " + std::to_string(predicted.size()) + " predictions for " +
                                std::to_string(measured.size()) + " measured values");
  }
  FitResult r;
  r.predicted = predicted;
  fill_stats(r, measured);
  r.converged = true;
  r.message = "evaluated, not fitted";
  return r;
}

FitResult fit_least_squares(const FitModel& model, const std::vector<double>& measured,
                            std::vector<FitParameter> parameters, const FitOptions& options) {
  check_measured(measured);
  std::size_t free_count = 0;
  for (const FitParameter& p : parameters) {
    if (p.fixed) continue;
    ++free_count;
    if (std::isnan(p.lower) || std::isnan(p.upper) || !(p.lower < p.upper)) {
      throw std::invalid_argument("least-squares fit: parameter \"" + p.name + "\" has empty bounds [" +
                                  std::to_string(p.lower) + ", " + std::to_string(p.upper) + "]");
    }
    if (!std::isfinite(p.value) || p.value < p.lower || p.value > p.upper) {
      throw std::invalid_argument("least-squares fit: the start value " + std::to_string(p.value) + " of parameter \"" +
                                  p.name + "\" is outside its bounds [" + std::to_string(p.lower) + ", " +
                                  std::to_string(p.upper) + "]");
    }
  }
  if (measured.size() < free_count) {
    throw std::invalid_argument("least-squares fit: " + std::to_string(measured.size()) +
                                " measured values cannot determine " + std::to_string(free_count) +
                                " free parameters (need at least as many points as free parameters)");
  }

  const Problem problem(model, measured, parameters);
  FitResult r;
  std::vector<double> best;
  if (free_count == 0) {
    for (const FitParameter& p : parameters) best.push_back(p.value);
    r.converged = true;
    r.message = "no free parameters: evaluated at the given values";
  } else {
    Eigen::VectorXd u = problem.internal();
    Problem functor = problem;
    Eigen::LevenbergMarquardt<Problem> lm(functor);
    lm.parameters.ftol = options.relative_tolerance;
    lm.parameters.xtol = options.relative_tolerance;
    lm.parameters.maxfev = std::numeric_limits<Eigen::Index>::max() / 4;  // bounded by max_iterations
    auto status = lm.minimizeInit(u);
    int steps = 0;
    if (status != Eigen::LevenbergMarquardtSpace::ImproperInputParameters) {
      do {
        status = lm.minimizeOneStep(u);
        ++steps;
      } while (status == Eigen::LevenbergMarquardtSpace::Running && steps < options.max_iterations);
    }
    r.iterations = steps;
    using namespace Eigen::LevenbergMarquardtSpace;
    r.converged = status == RelativeReductionTooSmall || status == RelativeErrorTooSmall ||
                  status == RelativeErrorAndReductionTooSmall || status == CosinusTooSmall || status == FtolTooSmall ||
                  status == XtolTooSmall || status == GtolTooSmall;
    r.message = status == Running ? "not converged: " + std::to_string(options.max_iterations) +
                                        " iterations reached (FitOptions::max_iterations)"
                                  : status_text(status);
    best = problem.external(u);
  }

  r.predicted = problem.predict(best);
  fill_stats(r, measured);
  const Eigen::VectorXd res = problem.residuals(best);
  const double ssr = res.squaredNorm();

  r.uncertainty.assign(parameters.size(), 0);
  if (free_count > 0) {
    const std::vector<double> sigma = uncertainties(problem.external_jacobian(best), ssr, measured.size() - free_count);
    for (std::size_t j = 0; j < problem.free_indices().size(); ++j) r.uncertainty[problem.free_indices()[j]] = sigma[j];
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].value = best[i];
  r.parameters = std::move(parameters);
  return r;
}

}  // namespace fathom::calib
