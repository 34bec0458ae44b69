// `--set key.path=value` overrides: they replace or add values before reading, and any error
// about a value they wrote names the override instead of a line of the file.
#include <doctest/doctest.h>

#include <string>

#include "scenarios/yaml_reader.hpp"
#include "tests/scenarios/toy_schema.hpp"

using fathom::scenario::Document;
using fathom::scenario::ScenarioError;
using fathom::scenario::test::kPilot;
using fathom::scenario::test::read_toy;
using fathom::scenario::test::replaced;
using fathom::scenario::test::Toy;
using fathom::sim::SimTime;

namespace {

Toy read_with(const std::string& text, std::initializer_list<const char*> overrides) {
  Document doc = Document::parse(text, "pilot.yaml");
  for (const char* o : overrides) doc.apply_override(o);
  return read_toy(doc);
}

// The error that applying `overrides` to `text` and reading it throws.
ScenarioError error_with(const std::string& text, std::initializer_list<const char*> overrides) {
  try {
    read_with(text, overrides);
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no error");
  return ScenarioError({}, "", "", "");
}

}  // namespace

TEST_CASE("an override replaces a value before reading") {
  CHECK(read_with(kPilot, {"cluster.nodes=16"}).nodes == 16);
  CHECK(read_with(kPilot, {"cluster.node.nvlink=1.8TB/s"}).nvlink_bytes_per_s == 1.8e12);
  CHECK(read_with(kPilot, {"cluster.fabric.kind=fat-tree"}).kind == "fat-tree");
  CHECK(read_with(kPilot, {"cluster.price=$3/h"}).price_usd_per_hour == 3.0);
  // The value is YAML: spaces and an "=" inside it are the value's own.
  CHECK(read_with(kPilot, {"cluster.node.nvlink= 900 GB/s"}).nvlink_bytes_per_s == 900e9);
  // Later overrides win.
  CHECK(read_with(kPilot, {"cluster.nodes=2", "cluster.nodes=3"}).nodes == 3);
}

TEST_CASE("an override indexes into sequences and may set a whole flow collection") {
  const Toy indexed =
      read_with(kPilot, {"cluster.fabric.tiers[1].bandwidth=1.6Tbps", "cluster.fabric.tiers[0].latency=3us"});
  CHECK(indexed.tiers[1].link_bytes_per_s == 200e9);
  CHECK(indexed.tiers[0].latency == SimTime::from_ns(3000));
  CHECK(indexed.tiers[0].link_bytes_per_s == 50e9);

  const Toy flow = read_with(kPilot, {"cluster.fabric.tiers=[{bandwidth: 100Gbps, latency: 1us}]"});
  REQUIRE(flow.tiers.size() == 1);
  CHECK(flow.tiers[0].link_bytes_per_s == 12.5e9);

  const Toy whole = read_with(kPilot, {"cluster.fabric.tiers[1]={bandwidth: 200Gbps, latency: 4us}"});
  CHECK(whole.tiers[1].link_bytes_per_s == 25e9);
  CHECK(whole.tiers[1].latency == SimTime::from_ns(4000));
}

TEST_CASE("an override creates the mappings on its path") {
  const std::string no_expect = replaced(kPilot, "expect:\n  mfu: 40%\n", "");
  CHECK(read_with(no_expect, {"expect.mfu=0.5"}).mfu == 0.5);

  const std::string no_node =
      replaced(kPilot, "  node:\n    gpus: 8\n    nvlink: 900GB/s\n    hbm: 80GiB\n    nvls: true\n", "");
  const Toy t = read_with(no_node, {"cluster.node.gpus=4"});
  CHECK(t.gpus == 4);
  CHECK(t.nvlink_bytes_per_s == 450e9);

  // An empty value ("node:") becomes a mapping too.
  const std::string empty_node =
      replaced(kPilot, "  node:\n    gpus: 8\n    nvlink: 900GB/s\n    hbm: 80GiB\n    nvls: true\n", "  node:\n");
  CHECK(read_with(empty_node, {"cluster.node.gpus=2"}).gpus == 2);

  // A whole scenario from overrides alone.
  const Toy from_nothing =
      read_with("", {"cluster.nodes=2", "cluster.fabric.hosts_per_leaf=1", "cluster.fabric.tiers=[]"});
  CHECK(from_nothing.nodes == 2);
  CHECK(from_nothing.hosts_per_leaf == 1);
}

TEST_CASE("an override through an alias changes only the aliased place") {
  Document doc = Document::parse("a: &x 1\nb: *x\n", "alias.yaml");
  doc.apply_override("b=2");
  const YAML::Node& tree = doc.tree();
  CHECK(tree["a"].as<int>() == 1);
  CHECK(tree["b"].as<int>() == 2);
}

TEST_CASE("a path through a scalar or a sequence is an error naming the override") {
  const ScenarioError through_scalar = error_with(kPilot, {"cluster.nodes.x=1"});
  CHECK(std::string(through_scalar.what()) ==
        "--set cluster.nodes.x=1: cluster.nodes: expected a mapping to hold \"x\", found \"4\"\n"
        "  cluster.nodes is set at pilot.yaml:3:10");
  CHECK(through_scalar.file() == "--set cluster.nodes.x=1");
  CHECK(through_scalar.line() == 0);

  const ScenarioError through_list = error_with(kPilot, {"cluster.fabric.tiers.bandwidth=1Gbps"});
  CHECK(through_list.key_path() == "cluster.fabric.tiers");
  CHECK(through_list.expected() == "a mapping to hold \"bandwidth\"");
  CHECK(through_list.found() == "a sequence");

  const ScenarioError index_a_map = error_with(kPilot, {"cluster.fabric[0]=1"});
  CHECK(index_a_map.expected() == "a sequence to hold [0]");
  CHECK(index_a_map.found() == "a mapping");

  const ScenarioError past_end = error_with(kPilot, {"cluster.fabric.tiers[2].bandwidth=1Gbps"});
  CHECK(std::string(past_end.what()) ==
        "--set cluster.fabric.tiers[2].bandwidth=1Gbps: cluster.fabric.tiers[2]: expected an index below 2, the "
        "length of cluster.fabric.tiers, found [2]");

  const ScenarioError after_override = error_with(kPilot, {"cluster.nodes=4", "cluster.nodes.x=1"});
  CHECK(after_override.hint() == "cluster.nodes is set at --set cluster.nodes=4");

  const ScenarioError scalar_document = error_with("just a string\n", {"cluster.nodes=1"});
  CHECK(scalar_document.key_path() == "(top level)");
}

TEST_CASE("malformed overrides are rejected as a whole") {
  for (const char* bad : {"cluster.nodes", "=3", "cluster..nodes=3", ".nodes=3", "cluster.=3", "cluster.nodes[x]=1",
                          "cluster.nodes[1=1", "cluster nodes=1", "cluster.nodes[]=1", "a]=1"}) {
    CAPTURE(bad);
    try {
      Document::parse(kPilot, "pilot.yaml").apply_override(bad);
      FAIL("accepted");
    } catch (const ScenarioError& e) {
      CHECK(e.file() == std::string("--set ") + bad);
      CHECK(e.expected() == "an override of the form key.path=value, such as cluster.nodes=16");
      CHECK(e.found() == "\"" + std::string(bad) + "\"");
    }
  }
  const ScenarioError syntax = error_with(kPilot, {"cluster.nodes=[1, 2"});
  CHECK(syntax.expected() == "a YAML value after \"=\"");
  CHECK(syntax.key_path() == "cluster.nodes");
}

TEST_CASE("errors about values an override wrote name the override") {
  const ScenarioError bad_value = error_with(kPilot, {"cluster.nodes=-3"});
  CHECK(std::string(bad_value.what()) ==
        "--set cluster.nodes=-3: cluster.nodes: expected a positive integer, found \"-3\"");

  const ScenarioError unknown = error_with(kPilot, {"cluster.node.nvlnk=1TB/s"});
  CHECK(std::string(unknown.what()) ==
        "--set cluster.node.nvlnk=1TB/s: cluster.node.nvlnk: expected a key of cluster.node (gpus, nvlink, hbm, nvls), "
        "found \"nvlnk\"\n  did you mean \"nvlink\"?");

  // A mapping the override created belongs to it, down to its keys.
  const ScenarioError created = error_with(kPilot, {"cluster.storage.tier=fast"});
  CHECK(created.file() == "--set cluster.storage.tier=fast");
  CHECK(created.key_path() == "cluster.storage");

  const ScenarioError in_flow = error_with(kPilot, {"cluster.fabric.tiers=[{bandwidth: 1gbps, latency: 1us}]"});
  CHECK(in_flow.file() == "--set cluster.fabric.tiers=[{bandwidth: 1gbps, latency: 1us}]");
  CHECK(in_flow.key_path() == "cluster.fabric.tiers[0].bandwidth");

  // Values the override did not touch stay located in the file.
  const ScenarioError untouched =
      error_with(replaced(kPilot, "hosts_per_leaf: 32", "hosts_per_leaf: -3"), {"cluster.nodes=16"});
  CHECK(std::string(untouched.what()) ==
        "pilot.yaml:11:21: cluster.fabric.hosts_per_leaf: expected a positive integer, found \"-3\"");
}
