#include "report/traffic/csv_tables.hpp"

#include <cstdio>
#include <string>

namespace fathom::report {

namespace {
std::string g17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
}  // namespace

void write_flows_csv(std::ostream& out, const topo::Topology& topology, const std::vector<net::FlowRequest>& flows,
                     const std::vector<net::FlowOutcome>& outcomes) {
  out << "id,src,dst,bytes,start_s,finish_s\n";
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    out << f.id << ',' << topology.vertex(f.src).name << ',' << topology.vertex(f.dst).name << ',' << g17(f.bytes)
        << ',' << g17(f.start.to_seconds()) << ',' << g17(outcomes[i].finish.to_seconds()) << '\n';
  }
}

void write_links_csv(std::ostream& out, const topo::Topology& topology) {
  out << "name,from,to,bytes_per_s,latency_ns\n";
  for (const auto& l : topology.links()) {
    out << l.name << ',' << topology.vertex(l.from).name << ',' << topology.vertex(l.to).name << ','
        << g17(l.bytes_per_s) << ',' << l.latency_ns << '\n';
  }
}

void write_routes_csv(std::ostream& out, const topo::Topology& topology, const std::vector<net::FlowRequest>& flows,
                      const std::vector<net::RoutedFlow>& routes) {
  out << "id,links\n";
  for (std::size_t i = 0; i < flows.size(); ++i) {
    out << flows[i].id << ',';
    for (std::size_t h = 0; h < routes[i].route.size(); ++h) {
      if (h > 0) out << ';';
      out << topology.link(routes[i].route[h]).name;
      // A flow spread over several paths (adaptive routing): the part of its bytes on the link.
      if (!routes[i].fractions.empty()) out << '*' << g17(routes[i].fractions[h]);
    }
    out << '\n';
  }
}

void write_link_usage_csv(std::ostream& out, const topo::Topology& topology, const std::vector<double>& link_bytes,
                          sim::SimTime makespan) {
  out << "name,from,to,bytes,utilisation\n";
  const double seconds = makespan.to_seconds();
  for (std::size_t i = 0; i < topology.links().size(); ++i) {
    const auto& l = topology.links()[i];
    const double utilisation = seconds > 0 ? link_bytes[i] / (l.bytes_per_s * seconds) : 0.0;
    out << l.name << ',' << topology.vertex(l.from).name << ',' << topology.vertex(l.to).name << ','
        << g17(link_bytes[i]) << ',' << g17(utilisation) << '\n';
  }
}

void write_link_timeline_csv(std::ostream& out, const topo::Topology& topology,
                             const std::vector<net::LinkLoadSample>& samples) {
  out << "time_s,link,bytes_per_s,utilisation\n";
  for (const auto& s : samples) {
    const auto& l = topology.link(s.link);
    out << g17(s.time.to_seconds()) << ',' << l.name << ',' << g17(s.bytes_per_s) << ','
        << g17(s.bytes_per_s / l.bytes_per_s) << '\n';
  }
}

}  // namespace fathom::report
