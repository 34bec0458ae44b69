// The packing experiment's terminal summary and JSON (docs/jobs.md, "The packing experiment").
#include <cstdio>
#include <string>

#include "report/jobs/jobs_report.hpp"
#include "report/json_header.hpp"
#include "report/terminal.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::report {

namespace {

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100 * x);
  return buf;
}

}  // namespace

void write_packing_summary(std::FILE* out, const JobsReport& report) {
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  const jobs::PackingRun& p = *report.packing;
  std::fprintf(out, "scenario: %s (seed %llu)\n", s.file.c_str(), static_cast<unsigned long long>(s.seed));
  std::fprintf(out, "cluster:  %zu nodes from %s, %lld GPUs\n", w.share_nodes.nodes.size(), w.nodes_file.c_str(),
               static_cast<long long>(p.total_gpu_milli / 1000));
  std::fprintf(out, "workload: the packing experiment: tasks drawn from the %lld pods of %s until %s of the GPUs\n",
               static_cast<long long>(w.trace_jobs), w.file.c_str(), percent(w.fill).c_str());
  std::fprintf(out, "          are asked for, none departing\n");
  std::fprintf(out, "policy:   placement %s\n", std::string(place::share_policy_name(w.share_policy)).c_str());
  print_user_catalog_entries(out, s);
  std::fprintf(out, "\n");
  std::fprintf(out, "  tasks arrived            %lld (%lld placed, %lld failed: no node could hold them)\n",
               static_cast<long long>(p.arrivals), static_cast<long long>(p.placed), static_cast<long long>(p.failed));
  if (p.allocated_at_100 >= 0) {
    std::fprintf(out, "  allocated at 100%%        %s of the GPUs\n", percent(p.allocated_at_100).c_str());
  }
  std::fprintf(out, "  allocated at the end     %s of the GPUs, with %s asked for\n",
               percent(p.allocated_at_end).c_str(), percent(p.arrived_at_end).c_str());
  std::fprintf(out, "  CPU allocated at the end %s of the cores\n", percent(p.cpu_allocated_at_end).c_str());
  std::fprintf(out, "  fragmentation at the end %s of the GPUs (against the trace's task mix)\n",
               percent(p.fragmentation_at_end).c_str());
}

void write_packing_json(std::ostream& out, const JobsReport& report) {
  const scenario::Scenario& s = report.scenario;
  const scenario::JobsWorkload& w = s.jobs;
  const jobs::PackingRun& p = *report.packing;
  sim::JsonWriter j(out, sim::JsonLayout::kPretty, 3);
  begin_report_json(j, s);
  j.key("cluster");
  j.begin_object();
  j.member("nodes", static_cast<std::int64_t>(w.share_nodes.nodes.size()));
  j.member("gpus", p.total_gpu_milli / 1000);
  j.member("node_list", w.nodes_file);
  j.end_object();
  j.key("trace");
  j.begin_object();
  j.member("file", w.file);
  j.member("format", "alibaba");
  j.member("trace_jobs", w.trace_jobs);
  j.end_object();
  j.key("policy");
  j.begin_object();
  j.member("placement", place::share_policy_name(w.share_policy));
  j.end_object();
  j.key("jobs");
  j.begin_object();
  j.member("experiment", "packing");
  j.member("fill", w.fill);
  j.member("count", p.arrivals);
  j.member("placed", p.placed);
  j.member("failed", p.failed);
  j.member("failed_gpus", static_cast<double>(p.failed_gpu_milli) / 1000);
  j.key("allocation_ratio_at_100");
  if (p.allocated_at_100 >= 0) {
    j.value(p.allocated_at_100);
  } else {
    j.value(nullptr);
  }
  j.member("allocation_ratio", p.allocated_at_end);
  j.member("arrived_ratio", p.arrived_at_end);
  j.member("fragmentation", p.fragmentation_at_end);
  j.member("cpu_allocation_ratio", p.cpu_allocated_at_end);
  j.key("allocation_curve");
  j.begin_array();
  for (const jobs::AllocationPoint& c : p.curve) {
    j.begin_array();
    j.value(c.arrived);
    j.value(c.allocated);
    j.end_array();
  }
  j.end_array();
  j.end_object();
  j.end_object();
  out << '\n';
}

}  // namespace fathom::report
