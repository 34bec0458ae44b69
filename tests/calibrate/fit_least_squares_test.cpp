// The bounded least-squares fit every calibration fit goes through: recovery of known
// parameters, the uncertainties against the closed form of a linear model, bounds, fixed and
// unidentifiable parameters, the statistics and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/fit/least_squares.hpp"

using fathom::calib::evaluate;
using fathom::calib::fit_least_squares;
using fathom::calib::FitModel;
using fathom::calib::FitOptions;
using fathom::calib::FitParameter;
using fathom::calib::FitResult;

namespace {

const std::vector<double> kX = {1, 2, 3, 4, 5, 6, 7, 8};

// y = a * x + b at the points kX.
FitModel linear() {
  return [](const std::vector<double>& p) {
    std::vector<double> y;
    for (double x : kX) y.push_back(p[0] * x + p[1]);
    return y;
  };
}

std::string message_of(const std::invalid_argument& e) { return e.what(); }

// A parameter to fit (a function rather than braces: -Wmissing-field-initializers).
FitParameter P(std::string name, double value, double lower = -std::numeric_limits<double>::infinity(),
               double upper = std::numeric_limits<double>::infinity(), bool fixed = false, std::string unit = "") {
  FitParameter p;
  p.name = std::move(name);
  p.value = value;
  p.lower = lower;
  p.upper = upper;
  p.fixed = fixed;
  p.unit = std::move(unit);
  return p;
}

}  // namespace

TEST_CASE("an exact model is recovered to the tolerance, with R^2 1 and zero errors") {
  // y = A * exp(-x / tau) + c: nonlinear in tau, the three parameters of very different scales.
  const double A = 3e9, tau = 2.5e-6, c = 4e7;
  std::vector<double> xs, measured;
  for (int i = 0; i < 12; ++i) {
    xs.push_back(i * 1e-6);
    measured.push_back(A * std::exp(-xs.back() / tau) + c);
  }
  const FitModel model = [&](const std::vector<double>& p) {
    std::vector<double> y;
    for (double x : xs) y.push_back(p[0] * std::exp(-x / p[1]) + p[2]);
    return y;
  };
  const FitResult r =
      fit_least_squares(model, measured,
                        {P("amplitude", 1e9, 0, 1e12, false, "B/s"), P("tau", 1e-6, 1e-9, 1e-3, false, "s"),
                         P("floor", 1e7, 0, 1e9, false, "B/s")});
  CHECK(r.converged);
  CHECK(r.value("amplitude") == doctest::Approx(A).epsilon(1e-7));
  CHECK(r.value("tau") == doctest::Approx(tau).epsilon(1e-7));
  CHECK(r.value("floor") == doctest::Approx(c).epsilon(1e-6));
  CHECK(r.max_abs_rel_error < 1e-8);
  CHECK(r.r_squared == doctest::Approx(1.0));
  CHECK(r.iterations > 0);
  REQUIRE(r.parameters.size() == 3);
  CHECK(r.parameters[1].name == "tau");
  CHECK(r.parameters[1].unit == "s");
  CHECK(r.predicted.size() == measured.size());
}

TEST_CASE("the uncertainties equal the closed form s^2 (J^T J)^-1 of a linear model") {
  // Relative residuals of y = a x + b: r_i = (a x_i + b - y_i) / y_i, J_i = (x_i / y_i, 1 / y_i).
  const std::vector<double> y = {3.1, 4.9, 7.2, 8.8, 11.1, 13.0, 14.8, 17.3};
  const FitResult r = fit_least_squares(linear(), y, {P("a", 1), P("b", 0)});
  REQUIRE(r.converged);
  double s00 = 0, s01 = 0, s11 = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    s00 += kX[i] * kX[i] / (y[i] * y[i]);
    s01 += kX[i] / (y[i] * y[i]);
    s11 += 1 / (y[i] * y[i]);
  }
  // The weighted normal equations give the optimum in closed form too.
  double t0 = 0, t1 = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    t0 += kX[i] / y[i];
    t1 += 1 / y[i];
  }
  const double det = s00 * s11 - s01 * s01;
  const double a = (s11 * t0 - s01 * t1) / det, b = (s00 * t1 - s01 * t0) / det;
  CHECK(r.value("a") == doctest::Approx(a).epsilon(1e-8));
  CHECK(r.value("b") == doctest::Approx(b).epsilon(1e-6));
  double ssr = 0;
  for (double e : r.relative_error) ssr += e * e;
  const double s2 = ssr / (y.size() - 2);
  CHECK(r.uncertainty[0] == doctest::Approx(std::sqrt(s2 * s11 / det)).epsilon(1e-5));
  CHECK(r.uncertainty[1] == doctest::Approx(std::sqrt(s2 * s00 / det)).epsilon(1e-5));
  CHECK(r.sigma("b") == r.uncertainty[1]);
  CHECK(fathom::calib::sum_squared_relative(r) == doctest::Approx(ssr));
}

TEST_CASE("bounds hold: a parameter whose best value lies outside its box ends on the bound") {
  const std::vector<double> y = {3, 5, 7, 9, 11, 13, 15, 17};  // a = 2, b = 1 exactly
  const FitResult r = fit_least_squares(linear(), y, {P("a", 1, 0, 1.5), P("b", 0)});
  CHECK(r.value("a") <= 1.5);
  CHECK(r.value("a") == doctest::Approx(1.5).epsilon(1e-4));
  CHECK(r.max_abs_rel_error > 0.05);  // the data want a = 2
  // A start on a bound still moves.
  const FitResult s = fit_least_squares(linear(), y, {P("a", 0, 0, 10), P("b", 0, 0, 10)});
  CHECK(s.value("a") == doctest::Approx(2).epsilon(1e-6));
  CHECK(s.value("b") == doctest::Approx(1).epsilon(1e-5));
}

TEST_CASE("a fixed parameter keeps its value and has zero uncertainty") {
  const std::vector<double> y = {3, 5, 7, 9, 11, 13, 15, 17};
  const FitResult r = fit_least_squares(linear(), y, {P("a", 2, 0, 10, true), P("b", 5)});
  CHECK(r.value("a") == 2);
  CHECK(r.uncertainty[0] == 0);
  CHECK(r.value("b") == doctest::Approx(1).epsilon(1e-6));
  // All fixed: evaluated only.
  const FitResult e = fit_least_squares(linear(), y, {P("a", 2, 0, 10, true), P("b", 1, -10, 10, true)});
  CHECK(e.converged);
  CHECK(e.max_abs_rel_error == doctest::Approx(0).epsilon(1e-12));
}

TEST_CASE("a parameter the data cannot identify gets NaN uncertainty, the others stay finite") {
  // `unused` changes nothing; `c` and `d` only act as their sum.
  const std::vector<double> y = {3.1, 4.9, 7.2, 8.8, 11.1, 13.0, 14.8, 17.3};
  const FitModel model = [](const std::vector<double>& p) {
    std::vector<double> out;
    for (double x : kX) out.push_back(p[0] * x + p[2] + p[3] + 0 * p[1]);
    return out;
  };
  const FitResult r = fit_least_squares(model, y, {P("a", 1), P("unused", 1, 0, 2), P("c", 0.5), P("d", 0.5)});
  CHECK(std::isfinite(r.uncertainty[0]));
  CHECK(std::isnan(r.uncertainty[1]));
  CHECK(std::isnan(r.uncertainty[2]));
  CHECK(std::isnan(r.uncertainty[3]));
  CHECK(r.value("unused") == 1);
  // As many points as free parameters: no degree of freedom, no uncertainty.
  const FitModel two = [](const std::vector<double>& p) { return std::vector<double>{p[0] + p[1], 2 * p[0] + p[1]}; };
  const FitResult exact = fit_least_squares(two, {3, 5}, {P("a", 1), P("b", 0)});
  CHECK(exact.value("a") == doctest::Approx(2).epsilon(1e-6));
  CHECK(std::isnan(exact.uncertainty[0]));
}

TEST_CASE("a wide positive box is fitted on a log scale and recovers values decades from the start") {
  const std::vector<double> bs = {1024, 4096, 65536, 524288, 1048576};
  std::vector<double> measured;
  for (double b : bs) measured.push_back(std::min(55e9, 1.2e6 * b));
  const FitModel model = [&](const std::vector<double>& p) {
    std::vector<double> out;
    for (double b : bs) out.push_back(std::min(p[0], p[1] * b));
    return out;
  };
  const FitResult r =
      fit_least_squares(model, measured, {P("max_bandwidth", 1e9, 1e3, 1e15), P("max_iops", 1e3, 1, 1e12)});
  CHECK(r.value("max_bandwidth") == doctest::Approx(55e9).epsilon(1e-6));
  CHECK(r.value("max_iops") == doctest::Approx(1.2e6).epsilon(1e-6));
}

TEST_CASE("evaluate: statistics of a prediction without a fit") {
  const FitResult r = evaluate({110, 190, 300, 410}, {100, 200, 300, 400});
  CHECK(r.relative_error[0] == doctest::Approx(0.1));
  CHECK(r.relative_error[1] == doctest::Approx(-0.05));
  CHECK(r.relative_error[2] == doctest::Approx(0));
  CHECK(r.max_abs_rel_error == doctest::Approx(0.1));
  CHECK(r.median_abs_rel_error == doctest::Approx((0.025 + 0.05) / 2));
  // SS_res = 100 + 100 + 0 + 100, SS_tot = 22500 + 2500 + 2500 + 22500.
  CHECK(r.r_squared == doctest::Approx(1 - 300.0 / 50000));
  CHECK(std::isnan(evaluate({1}, {2}).r_squared));
  CHECK_THROWS_AS(evaluate({1, 2}, {1}), std::invalid_argument);
}

TEST_CASE("errors: bad measurements, too few points, bad bounds, unknown names") {
  const FitModel constant = [](const std::vector<double>& p) { return std::vector<double>{p[0], p[0]}; };
  try {
    (void)fit_least_squares(constant, {1, 0}, {P("c", 1)});
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(message_of(e).find("positive and finite") != std::string::npos);
  }
  CHECK_THROWS_AS(fit_least_squares(constant, {1, std::nan("")}, {P("c", 1)}), std::invalid_argument);
  try {
    (void)fit_least_squares(linear(), {1}, {P("a", 1), P("b", 0)});
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(message_of(e).find("1 measured values cannot determine 2 free parameters") != std::string::npos);
  }
  CHECK_THROWS_AS(fit_least_squares(constant, {1, 2}, {P("c", 5, 0, 1)}), std::invalid_argument);
  CHECK_THROWS_AS(fit_least_squares(constant, {1, 2}, {P("c", 1, 2, 1)}), std::invalid_argument);
  CHECK_THROWS_AS(fit_least_squares(linear(), {1, 2}, {P("a", 1), P("b", 0)}), std::invalid_argument);  // 8 vs 2
  const FitResult r = fit_least_squares(constant, {1, 2}, {P("c", 1)});
  CHECK(r.value("c") == doctest::Approx(1.2).epsilon(1e-6));  // minimises (c-1)^2 + (c/2-1)^2
  try {
    (void)r.value("nope");
    FAIL("no error");
  } catch (const std::out_of_range& e) {
    CHECK(std::string(e.what()).find("\"nope\"") != std::string::npos);
    CHECK(std::string(e.what()).find("c") != std::string::npos);
  }
}

TEST_CASE("deterministic: the same input gives bit-identical output") {
  const std::vector<double> y = {3.1, 4.9, 7.2, 8.8, 11.1, 13.0, 14.8, 17.3};
  const FitResult a = fit_least_squares(linear(), y, {P("a", 1, 0, 10), P("b", 0.5, 0, 10)});
  const FitResult b = fit_least_squares(linear(), y, {P("a", 1, 0, 10), P("b", 0.5, 0, 10)});
  CHECK(a.value("a") == b.value("a"));
  CHECK(a.uncertainty == b.uncertainty);
  CHECK(a.iterations == b.iterations);
}
