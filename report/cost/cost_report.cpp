#include "report/cost/cost_report.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "topologies/cluster.hpp"

namespace fathom::report {

cost::CostResult price_cluster(const scenario::Scenario& s, const cost::Usage& usage) {
  return price_cluster(s, usage, topo::build_cluster(s.cluster));
}

cost::CostResult price_cluster(const scenario::Scenario& s, const cost::Usage& usage, const topo::Topology& built) {
  const cost::Census census = cost::census_of(built);
  try {
    return cost::evaluate_cost(census, *s.cost, usage);
  } catch (const std::invalid_argument& e) {
    // The model's checks read "cost.<key>: expected <what>, found <what>[; <hint>]": located at the
    // key where the file sets it, else at the section.
    const std::string what = e.what();
    const std::size_t colon = what.find(": expected ");
    const std::size_t found = what.find(", found ");
    if (colon == std::string::npos || found == std::string::npos) throw;
    const std::string key = what.substr(0, colon);
    const std::size_t semicolon = what.find("; ", found);
    const auto it = s.locations.find(key);
    const auto at = it != s.locations.end() ? it->second : s.locations.at("cost");
    throw scenario::ScenarioError(
        at, key, what.substr(colon + 11, found - colon - 11),
        what.substr(found + 8, semicolon == std::string::npos ? std::string::npos : semicolon - found - 8),
        semicolon == std::string::npos ? "" : what.substr(semicolon + 2));
  }
}

cost::Usage training_usage(const scenario::Scenario& s, const train::TrainingResult& r) {
  cost::Usage u;
  u.gpu_tdp_watts = s.accelerator.tdp_watts;
  u.gpus_used = s.training.gpus;
  double busy = 0;
  for (const auto& stage : r.stages) busy += stage.breakdown.compute;
  if (!r.stages.empty() && r.step_seconds > 0) {
    u.busy_fraction = std::min(1.0, busy / static_cast<double>(r.stages.size()) / r.step_seconds);
  }
  u.step_seconds = r.step_seconds;
  u.tokens_per_step = static_cast<double>(s.training.global_batch) * s.training.sequence;
  if (r.time_to_train_s > 0 && r.step_seconds > 0) u.steps_per_run = r.time_to_train_s / r.step_seconds;
  return u;
}

cost::Usage inference_usage(const scenario::Scenario& s, double gpu_hours, double busy_fraction, double duration_s,
                            double output_tokens) {
  cost::Usage u;
  u.gpu_tdp_watts = s.accelerator.tdp_watts;
  if (duration_s > 0) u.gpus_used = gpu_hours * 3600 / duration_s;
  u.busy_fraction = std::clamp(busy_fraction, 0.0, 1.0);
  u.step_seconds = duration_s;
  u.tokens_per_step = output_tokens;
  return u;
}

cost::Usage peak_usage(const scenario::Scenario& s) {
  cost::Usage u;
  u.gpu_tdp_watts = s.accelerator.tdp_watts;
  u.gpus_used = static_cast<double>(s.cluster.nodes) * s.cluster.node.gpus;
  u.busy_fraction = 1;
  return u;
}

}  // namespace fathom::report

namespace fathom::report {

// "$1.234M", "$56.7k", "$812": four significant digits, in a form a reader takes in at a glance.
std::string usd_text(double usd) {
  char buf[48];
  const double a = std::abs(usd);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "$%.4gB", usd / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "$%.4gM", usd / 1e6);
  } else if (a >= 1e4) {
    std::snprintf(buf, sizeof buf, "$%.4gk", usd / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "$%.4g", usd);
  }
  return buf;
}

std::string kw_text(double watts) {
  char buf[48];
  if (watts >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.4g MW", watts / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g kW", watts / 1e3);
  }
  return buf;
}

void write_cost_summary(std::FILE* out, const cost::CostResult& c, const cost::CostSpec& spec, const std::string& step,
                        const std::string& accelerator) {
  std::fprintf(out, "\ncost (docs/cost.md; prices as of their sources, switch %s):\n", spec.switch_name.c_str());
  std::fprintf(out, "  %-34s %10s %12s %12s\n", "capex", "count", "unit", "total");
  for (const auto& line : c.capex) {
    if (line.count == 0 || line.unit_usd == 0) continue;  // racks without a price are counted below
    std::fprintf(out, "  %-34s %10.0f %12s %12s\n", line.item.c_str(), line.count, usd_text(line.unit_usd).c_str(),
                 usd_text(line.usd()).c_str());
  }
  std::fprintf(out, "  %-34s %10s %12s %12s\n", "total capex", "", "", usd_text(c.capex_usd).c_str());
  if (c.racks > 0) std::fprintf(out, "  racks: %zu of %s\n", c.racks, kw_text(spec.rack_watts).c_str());
  const bool gpu = accelerator == "GPU";
  std::fprintf(out, "  power: %s IT (%s with every %s at %s), %s facility at PUE %.3g\n", kw_text(c.power_w_it).c_str(),
               kw_text(c.power_w_it_peak).c_str(), accelerator.c_str(), gpu ? "TDP" : "full power",
               kw_text(c.power_w_facility).c_str(), spec.pue);
  std::fprintf(out, "  opex per year: %s (energy %s, maintenance %s, space %s)\n",
               usd_text(c.opex_usd_per_year).c_str(), usd_text(c.energy_usd_per_year).c_str(),
               usd_text(c.maintenance_usd_per_year).c_str(), usd_text(c.space_usd_per_year).c_str());
  std::fprintf(out, "  TCO over %.3g years: %s, %s per %s-hour\n", spec.years, usd_text(c.tco_usd).c_str(),
               usd_text(c.usd_per_gpu_hour).c_str(), accelerator.c_str());
  if (c.usd_per_step > 0) {
    std::fprintf(out, "  per %s: %s, %.4g kWh; %s per million tokens\n", step.c_str(), usd_text(c.usd_per_step).c_str(),
                 c.energy_kwh_per_step, usd_text(c.usd_per_million_tokens).c_str());
  }
  if (c.usd_per_run > 0) {
    std::fprintf(out, "  per run: %s owned", usd_text(c.usd_per_run).c_str());
    if (c.on_demand_usd_per_run > 0) std::fprintf(out, ", %s on demand", usd_text(c.on_demand_usd_per_run).c_str());
    if (c.reserved_usd_per_run > 0) std::fprintf(out, ", %s reserved", usd_text(c.reserved_usd_per_run).c_str());
    if (c.storage_usd_per_run > 0)
      std::fprintf(out, " (storage tiers %s of each)", usd_text(c.storage_usd_per_run).c_str());
    std::fprintf(out, "\n");
  }
}

void write_cost_json(sim::JsonWriter& j, const cost::CostResult& c, const cost::CostSpec& spec) {
  j.begin_object();
  j.key("switch");
  j.value(spec.switch_name);
  j.key("capex");
  j.begin_array();
  for (const auto& line : c.capex) {
    j.begin_object();
    j.key("item");
    j.value(line.item);
    j.key("count");
    j.value(line.count);
    j.key("unit_usd");
    j.value(line.unit_usd);
    j.key("usd");
    j.value(line.usd());
    j.end_object();
  }
  j.end_array();
  const std::pair<const char*, double> figures[] = {
      {"racks", static_cast<double>(c.racks)},
      {"capex_usd", c.capex_usd},
      {"power_kw_it", c.power_w_it / 1e3},
      {"power_kw_it_peak", c.power_w_it_peak / 1e3},
      {"power_kw_facility", c.power_w_facility / 1e3},
      {"energy_usd_per_year", c.energy_usd_per_year},
      {"maintenance_usd_per_year", c.maintenance_usd_per_year},
      {"space_usd_per_year", c.space_usd_per_year},
      {"opex_usd_per_year", c.opex_usd_per_year},
      {"amortisation_years", spec.years},
      {"tco_usd", c.tco_usd},
      {"usd_per_gpu_hour", c.usd_per_gpu_hour},
      {"energy_kwh_per_step", c.energy_kwh_per_step},
      {"usd_per_step", c.usd_per_step},
      {"usd_per_run", c.usd_per_run},
      {"usd_per_million_tokens", c.usd_per_million_tokens},
      {"on_demand_usd_per_run", c.on_demand_usd_per_run},
      {"reserved_usd_per_run", c.reserved_usd_per_run},
      {"storage_usd_per_run", c.storage_usd_per_run},
  };
  for (const auto& [key, value] : figures) {
    j.key(key);
    j.value(value);
  }
  j.end_object();
}

}  // namespace fathom::report
