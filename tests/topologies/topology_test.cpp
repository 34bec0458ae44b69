// Topology: vertices, links, cables, name lookup and the Boost.Graph view.
#include "topologies/topology.hpp"

#include <doctest/doctest.h>

#include <boost/graph/graph_traits.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "tests/topologies/fixtures.hpp"

using namespace fathom::topo;
using fathom::test::error_of;
using fathom::test::example_fabric;

TEST_CASE("add_vertex numbers vertices in order and refuses a taken name") {
  Topology t;
  CHECK(t.add_vertex("leaf0", VertexKind::kSwitch, 1) == 0);
  CHECK(t.add_vertex("n0.nic0", VertexKind::kNic, 0, 0) == 1);
  CHECK(t.vertex(0).tier == 1);
  CHECK(t.vertex(0).node == -1);
  CHECK(t.vertex(1).node == 0);
  CHECK(t.vertex(1).kind == VertexKind::kNic);
  CHECK_THROWS_AS(t.add_vertex("leaf0", VertexKind::kSwitch, 1), std::invalid_argument);
  CHECK_THROWS_AS(t.add_vertex("", VertexKind::kSwitch, 1), std::invalid_argument);
  CHECK(t.vertices().size() == 2);
  CHECK(boost::num_vertices(t.graph()) == 2);
}

TEST_CASE("add_cable makes two directed links with consecutive ids and readable names") {
  Topology t;
  const VertexId nic = t.add_vertex("n0.nic0", VertexKind::kNic);
  const VertexId leaf = t.add_vertex("leaf0", VertexKind::kSwitch, 1);
  const LinkId up = t.add_cable(nic, leaf, 12.5e9, 1000, LinkClass::kHostLeaf);
  CHECK(up == 0);
  REQUIRE(t.links().size() == 2);
  CHECK(t.link(0).name == "n0.nic0->leaf0");
  CHECK(t.link(1).name == "leaf0->n0.nic0");
  CHECK(t.link(1).from == leaf);
  CHECK(t.link(1).to == nic);
  CHECK(t.link(1).bytes_per_s == 12.5e9);
  CHECK(t.link(1).latency_ns == 1000);
  CHECK(t.link(1).cls == LinkClass::kHostLeaf);
  CHECK(t.out_links(nic) == std::vector<LinkId>{0});
  CHECK(t.in_links(nic) == std::vector<LinkId>{1});
  CHECK(t.out_links(leaf) == std::vector<LinkId>{1});
}

TEST_CASE("the Boost graph mirrors the links, edge_index = LinkId") {
  Topology t;
  for (const char* name : {"v0", "v1", "v2", "v3", "v4"}) t.add_vertex(name, VertexKind::kSwitch, 1);
  t.add_cable(0, 1, 1e9, 1, LinkClass::kLeafSpine);
  t.add_cable(1, 2, 2e9, 2, LinkClass::kLeafSpine);
  t.add_link(4, 3, 3e9, 3, LinkClass::kSpineCore);
  t.add_link(0, 1, 4e9, 4, LinkClass::kLeafSpine);  // a parallel link is a separate edge
  const Graph& g = t.graph();
  CHECK(boost::num_vertices(g) == 5);
  REQUIRE(boost::num_edges(g) == t.links().size());
  const auto index = boost::get(boost::edge_index, g);
  std::vector<int> seen(t.links().size(), 0);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const LinkId l = index[*it];
    REQUIRE(l < t.links().size());
    ++seen[l];
    CHECK(boost::source(*it, g) == t.link(l).from);
    CHECK(boost::target(*it, g) == t.link(l).to);
  }
  for (int s : seen) CHECK(s == 1);
  CHECK(boost::out_degree(0, g) == t.out_links(0).size());
  CHECK(boost::in_degree(1, g) == t.in_links(1).size());
}

TEST_CASE("add_link refuses unknown vertices, self-loops, bad bandwidths and negative latencies") {
  Topology t;
  const VertexId a = t.add_vertex("a", VertexKind::kSwitch, 1);
  const VertexId b = t.add_vertex("b", VertexKind::kSwitch, 1);
  CHECK(error_of([&] { t.add_link(a, 7, 1e9, 0, LinkClass::kLeafSpine); }).find("vertex id 7") != std::string::npos);
  CHECK(error_of([&] { t.add_link(a, a, 1e9, 0, LinkClass::kLeafSpine); }).find("a->a is a self-loop") !=
        std::string::npos);
  CHECK_THROWS_AS(t.add_link(a, b, 0, 0, LinkClass::kLeafSpine), std::invalid_argument);
  CHECK_THROWS_AS(t.add_link(a, b, -1e9, 0, LinkClass::kLeafSpine), std::invalid_argument);
  CHECK_THROWS_AS(t.add_link(a, b, std::numeric_limits<double>::quiet_NaN(), 0, LinkClass::kLeafSpine),
                  std::invalid_argument);
  CHECK_THROWS_AS(t.add_link(a, b, std::numeric_limits<double>::infinity(), 0, LinkClass::kLeafSpine),
                  std::invalid_argument);
  CHECK(error_of([&] { t.add_link(a, b, 1e9, -5, LinkClass::kLeafSpine); }).find("negative latency_ns -5") !=
        std::string::npos);
  CHECK(t.links().empty());
  CHECK(boost::num_edges(t.graph()) == 0);
}

TEST_CASE("find and at look vertices up by name; at() suggests the closest names") {
  Topology t;
  for (int j = 0; j < 8; ++j) t.add_vertex("n3.gpu" + std::to_string(j), VertexKind::kGpu, 0, 3);
  t.add_vertex("n3.nvswitch", VertexKind::kNvSwitch, 0, 3);
  t.add_vertex("spine0", VertexKind::kSwitch, 2);
  CHECK(t.find("n3.gpu5") == VertexId{5});
  CHECK(!t.find("n3.gpu9").has_value());
  CHECK(t.at("spine0") == 9);
  const std::string msg = error_of([&] { t.at("n3.nvswitc"); });
  CHECK(msg.find("\"n3.nvswitc\"") != std::string::npos);
  CHECK(msg.find("did you mean \"n3.nvswitch\"") != std::string::npos);
  // Ties break in name order, and at most three names are offered.
  const std::string gpu = error_of([&] { t.at("n3.gpu9"); });
  CHECK(gpu == "topology has no vertex \"n3.gpu9\"; did you mean \"n3.gpu0\", \"n3.gpu1\" or \"n3.gpu2\"?");
  CHECK(error_of([] { Topology().at("x"); }).find("empty") != std::string::npos);
}

TEST_CASE("enum names for reports") {
  CHECK(to_string(VertexKind::kNvSwitch) == "nvswitch");
  CHECK(to_string(VertexKind::kGpu) == "gpu");
  CHECK(to_string(LinkClass::kHostLeaf) == "host-leaf");
  CHECK(to_string(LinkClass::kSpineCore) == "spine-core");
  TopologySummary s;
  s.description = "test";
  s.switches_per_tier = {0, 2};
  s.cables_per_tier = {0, 4};
  s.oversubscription_per_tier = {1.0, 3.0};
  s.endpoints = 4;
  s.bisection_bytes_per_s = 25e9;
  const std::string text = to_string(s);
  CHECK(text.find("tier 1: 2 switches, 4 cables up to it, oversubscription 3:1") != std::string::npos);
  CHECK(text.find("bisection: 2.5e+10 B/s") != std::string::npos);
}
