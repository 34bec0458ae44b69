#include "calibrate/fit/storage_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

namespace fathom::calib {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The block size a row moved per I/O: bandwidth / IOPS when fio reported IOPS.
double block_of(const FioResult& r) {
  if (r.iops && *r.iops > 0 && r.bandwidth_bytes_per_s > 0) return r.bandwidth_bytes_per_s / *r.iops;
  return static_cast<double>(r.block_size_bytes);
}

int direction_rank(const std::string& d) { return d == "read" ? 0 : d == "write" ? 1 : d == "trim" ? 2 : 3; }

using Key = std::tuple<int, std::string, int, std::string, int, int>;  // rank, dir, random?, access, qd, jobs

FitParameter parameter(const char* name, double value, double lower, double upper, const char* unit, bool fixed) {
  FitParameter p;
  p.name = name;
  p.value = std::clamp(value, lower, upper);
  p.lower = lower;
  p.upper = upper;
  p.fixed = fixed;
  p.unit = unit;
  return p;
}

}  // namespace

double StorageFit::bandwidth(double block_bytes) const {
  return std::min(max_bandwidth_bytes_per_s, max_iops * block_bytes);
}

std::vector<StorageFit> fit_storage(const FioRuns& runs, const FitOptions& options) {
  if (runs.results.empty()) throw std::invalid_argument("storage fit of " + runs.file + ": no fio results");
  std::map<Key, std::vector<FioResult>> groups;
  for (const FioResult& r : runs.results) {
    const bool random = r.rw.rfind("rand", 0) == 0;
    groups[Key{direction_rank(r.direction), r.direction, random ? 1 : 0, random ? "random" : "sequential", r.iodepth,
               r.numjobs}]
        .push_back(r);
  }

  std::vector<StorageFit> fits;
  for (auto& [key, rows] : groups) {
    StorageFit f;
    f.direction = std::get<1>(key);
    f.access = std::get<3>(key);
    f.iodepth = std::get<4>(key);
    f.numjobs = std::get<5>(key);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const FioResult& a, const FioResult& b) { return block_of(a) < block_of(b); });
    f.rows = rows;

    std::vector<double> measured, blocks;
    double max_bw = 0, max_iops = 0;
    for (const FioResult& r : rows) {
      measured.push_back(r.bandwidth_bytes_per_s);
      blocks.push_back(block_of(r));
      max_bw = std::max(max_bw, r.bandwidth_bytes_per_s);
      max_iops = std::max(max_iops, r.bandwidth_bytes_per_s / block_of(r));
    }
    for (double b : blocks) {
      if (!(b > 0))
        throw std::invalid_argument("storage fit of " + runs.file + ": a " + f.direction + " row has no block size");
    }
    const bool several_sizes = blocks.front() != blocks.back();

    // Where max_bandwidth comes from when this group cannot tell.
    const StorageFit* borrowed = nullptr;
    if (!several_sizes) {
      for (const StorageFit& g : fits) {
        if (g.direction == f.direction && g.access == "sequential" && g.iodepth == f.iodepth &&
            g.numjobs == f.numjobs && g.bandwidth_points > 0) {
          borrowed = &g;
        }
      }
    }
    const bool fix_bandwidth = !several_sizes;
    const double bw_start = borrowed ? borrowed->max_bandwidth_bytes_per_s : max_bw;
    const FitModel model = [&](const std::vector<double>& p) {
      std::vector<double> y;
      for (double b : blocks) y.push_back(std::min(p[0], p[1] * b));
      return y;
    };
    std::vector<FitParameter> params = {parameter("max_bandwidth", bw_start, 1e3, 1e15, "B/s", fix_bandwidth),
                                        parameter("max_iops", max_iops, 1, 1e12, "1/s", false)};
    f.fit = fit_least_squares(model, measured, std::move(params), options);
    f.max_bandwidth_bytes_per_s = f.fit.value("max_bandwidth");
    f.max_iops = f.fit.value("max_iops");

    // Which branch each row is on after the fit.
    for (double b : blocks) {
      if (f.max_bandwidth_bytes_per_s <= f.max_iops * b) {
        ++f.bandwidth_points;
      } else {
        ++f.iops_points;
      }
    }
    if (borrowed) {
      f.bandwidth_points = 0;
      f.bandwidth_source = "from sequential " + f.direction + " (fixed, " + std::to_string(borrowed->bandwidth_points) +
                           " points there)";
      f.fit.uncertainty[0] = borrowed->fit.uncertainty[0];
    } else if (fix_bandwidth) {
      f.bandwidth_points = 0;
      f.bandwidth_source = "not identified: one block size and no sequential " + f.direction +
                           " group; set to the largest measured bandwidth, a lower bound";
      f.fit.uncertainty[0] = kNaN;
    } else {
      f.bandwidth_source = "fitted from " + std::to_string(f.bandwidth_points) + " rows";
    }
    f.iops_source = "fitted from " + std::to_string(f.iops_points) + " rows";
    // One point fixes a parameter exactly; nothing checks it.
    if (f.bandwidth_points == 1) f.fit.uncertainty[0] = kNaN;
    if (f.iops_points <= 1) f.fit.uncertainty[1] = kNaN;
    if (f.bandwidth_points == 0 && !borrowed && !fix_bandwidth) f.fit.uncertainty[0] = kNaN;
    f.fit.message += "; max_bandwidth " + f.bandwidth_source + "; max_iops " + f.iops_source;
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace fathom::calib
