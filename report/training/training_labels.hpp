// Names and formats the training writers share.
#pragma once

#include <string>
#include <vector>

#include "models/hardware/accelerator.hpp"
#include "models/workloads/training/step_model.hpp"

namespace fathom::report {

struct BreakdownComponent {
  const char* key;    // JSON key under training.breakdown
  const char* label;  // terminal label
  double seconds;
};

std::vector<BreakdownComponent> components(const train::StepBreakdown& b);

const char* precision_name(hw::Precision p);
const char* recompute_name(train::Recompute r);

// "12.34 GiB"
std::string gib(double bytes);

// "1.2 TB", "34.5 MB", "512 B": decimal units, 3 significant digits.
std::string size_text(double bytes);

// "11.318 s", "9.47 days": ms below a second, s, h, days from a day up.
std::string duration_text(double seconds);

}  // namespace fathom::report
