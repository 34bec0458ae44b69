#include "report/traffic/traffic_report.hpp"

#include <string>
#include <utility>

#include "report/terminal.hpp"
#include "scenarios/units.hpp"
#include "sim/simulation.hpp"
#include "sim/stats/histogram.hpp"

namespace fathom::report {

namespace {

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

// A flow that cannot end within SimTime's range, located where its bytes were written: its row
// of the flows file, or the pattern's `bytes` key.
[[noreturn]] void refuse_beyond_clock(const PreparedTraffic& p, const net::BeyondClock& e) {
  const scenario::Scenario& s = p.scenario;
  const net::FlowRequest& flow = p.flows.at(e.flow());
  char figures[160];
  std::snprintf(figures, sizeof figures, "%s at the %s it gets, finishing %.4g years after time 0",
                scenario::format_bytes(static_cast<std::int64_t>(e.remaining_bytes())).c_str(),
                scenario::format_bytes_per_s(e.bytes_per_s()).c_str(), e.seconds() / (365.25 * 86400));
  const std::string found = "flow " + std::to_string(flow.id) + " (" + p.topology.vertex(flow.src).name + " -> " +
                            p.topology.vertex(flow.dst).name + "): " + figures;
  const std::string expected =
      "flows that finish within the 292.3 years (2^63 ns) of simulated time fathom's clock holds";
  const std::string hint = "fewer bytes, or faster links";
  if (s.traffic.from_file)
    throw scenario::ScenarioError(s.traffic.rows.at(e.flow()).where, "bytes", expected, found, hint);
  const auto it = s.locations.find("workload.bytes");
  throw scenario::ScenarioError(it != s.locations.end() ? it->second : scenario::Location{s.file, 0, 0},
                                "workload.bytes", expected, found, hint);
}

}  // namespace

TrafficReport evaluate_traffic(scenario::Scenario scenario, bool link_timeline, unsigned threads) {
  TrafficReport t;
  t.traffic = prepare_traffic(std::move(scenario));
  const PreparedTraffic& p = t.traffic;
  if (p.scenario.workload != scenario::WorkloadKind::kTraffic) {
    const auto it = p.scenario.locations.find("workload.kind");
    throw scenario::ScenarioError(
        it == p.scenario.locations.end() ? scenario::Location{p.scenario.file, 0, 0} : it->second, "workload.kind",
        "traffic for `fathom simulate`", "nccl-tests", "run it with `fathom nccl-tests`");
  }
  try {
    t.result = net::simulate_transfers(p.topology, p.flows, p.routes, p.scenario.seed, link_timeline, threads);
  } catch (const net::BeyondClock& e) {
    refuse_beyond_clock(p, e);
  }
  sim::ExactQuantiles fct;
  for (std::size_t i = 0; i < p.flows.size(); ++i) {
    fct.add((t.result.flows[i].finish - p.flows[i].start).to_seconds());
    t.total_bytes += p.flows[i].bytes;
  }
  if (!p.flows.empty()) t.completion = {fct.mean(), fct.p50(), fct.p99(), fct.max()};
  const auto& bytes = t.result.link_bytes;
  for (std::size_t l = 1; l < bytes.size(); ++l) {
    if (bytes[l] / p.topology.link(static_cast<topo::LinkId>(l)).bytes_per_s >
        bytes[t.busiest_link] / p.topology.link(static_cast<topo::LinkId>(t.busiest_link)).bytes_per_s) {
      t.busiest_link = l;
    }
  }
  return t;
}

void write_traffic_summary(std::FILE* out, const TrafficReport& t) {
  const PreparedTraffic& p = t.traffic;
  const net::TransferResult& r = t.result;
  const auto& s = p.topology.summary;
  std::fprintf(out, "scenario: %s (seed %llu)\n", p.scenario.file.c_str(),
               static_cast<unsigned long long>(p.scenario.seed));
  std::fprintf(out, "cluster:  %s; bisection %s\n", s.description.c_str(),
               scenario::format_bytes_per_s(s.bisection_bytes_per_s).c_str());
  std::fprintf(out, "workload: traffic, %zu flows, %s in all\n", p.flows.size(),
               scenario::format_bytes(static_cast<std::int64_t>(t.total_bytes)).c_str());
  print_user_catalog_entries(out, p.scenario);
  std::fprintf(out, "\n");
  if (!p.flows.empty()) {
    const FlowCompletion& c = t.completion;
    std::fprintf(out, "  makespan                 %s\n", ms(r.makespan.to_seconds()).c_str());
    std::fprintf(out, "  flow completion time     mean %s, p50 %s, p99 %s, max %s\n", ms(c.mean_s).c_str(),
                 ms(c.p50_s).c_str(), ms(c.p99_s).c_str(), ms(c.max_s).c_str());
    if (r.makespan > sim::SimTime::zero()) {
      std::fprintf(out, "  aggregate throughput     %s over the makespan\n",
                   scenario::format_bytes_per_s(t.total_bytes / r.makespan.to_seconds()).c_str());
      const auto& l = p.topology.link(static_cast<topo::LinkId>(t.busiest_link));
      std::fprintf(out, "  busiest link             %s, %.1f%% utilised over the makespan\n", l.name.c_str(),
                   100.0 * r.link_bytes[t.busiest_link] / (l.bytes_per_s * r.makespan.to_seconds()));
    }
  }
  std::fprintf(
      out,
      "  events                   %llu (max-min re-ratings %llu, flows re-rated %llu, arrivals rated alone %llu)\n",
      static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.component_updates),
      static_cast<unsigned long long>(r.flow_rerates), static_cast<unsigned long long>(r.local_settles));
  std::fprintf(out, "  network processes        %u (one per set of links no flow joins to another)\n", r.parts);
  std::fprintf(out, "\nfingerprint=%s\n", sim::format_fingerprint(r.fingerprint).c_str());
}

}  // namespace fathom::report
