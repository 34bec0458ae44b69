// Writes a Calibration as the profile YAML a scenario reads with `calibration: FILE`
// (scenarios/calibration_profile.hpp has the schema; docs/calibration.md explains it), and as
// the per-point CSV the calibration notebook plots.
#pragma once

#include <string>
#include <vector>

#include "calibrate/profile/calibration.hpp"

namespace fathom::calib {

struct SourceFile {
  std::string file;
  std::string sha256;
  std::string kind;  // kind_of() of its measurement
  std::size_t rows = 0;
  std::string used;  // "fit", "held out", or "repeat of FILE" (a .log's CSV, counted once)
};

struct ProfileMeta {
  std::string system;   // free text; the first input folder's name by default
  std::string created;  // ISO 8601 UTC
  std::string tool;     // "fathom calibrate (fathom 0.1.0)"
  std::vector<SourceFile> sources;
};

// Only what was fitted goes into `accelerator:` and `collectives:`; every other parameter keeps
// the catalog's value, and `fits:` says which were fitted, with their uncertainties and the
// fits' R^2 and errors.
std::string profile_yaml(const Calibration& calibration, const SystemFacts& system, const ProfileMeta& meta);

// file,kind,label,x,measured,predicted,unit,rel_error,held_out: one row per point.
std::string points_csv(const Calibration& calibration);

// The square-GEMM curve (FLOPs, fraction of the dense peak) at m = n = k = 1024, 2048, ..., 32768
// that the scenario's roofline interpolates (docs/hardware.md, "GEMMs"): the measured rate where
// the fit's points have that square shape (the roofline keys on FLOPs alone, and a measurement
// of the very shape beats the model's smoothing of it), the fitted model's elsewhere.
std::vector<hw::GemmPoint> gemm_curve_of(const GemmFit& fit);

}  // namespace fathom::calib
