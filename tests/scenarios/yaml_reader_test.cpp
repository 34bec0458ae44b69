// The strict YAML reader: a valid document reads into exact SI values, and every kind of
// mistake gives a ScenarioError with the file, line, column, key path, what was expected
// and what was found, as the user wrote it.
#include "scenarios/yaml_reader.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/scenarios/toy_schema.hpp"

using fathom::scenario::Document;
using fathom::scenario::ListReader;
using fathom::scenario::MapReader;
using fathom::scenario::ScenarioError;
using fathom::scenario::Sign;
using fathom::scenario::test::kPilot;
using fathom::scenario::test::read_toy;
using fathom::scenario::test::replaced;
using fathom::scenario::test::Toy;
using fathom::sim::SimTime;

namespace {

// The error that reading `text` as the toy schema throws.
ScenarioError error_of(const std::string& text, const std::string& file = "pilot.yaml") {
  try {
    read_toy(Document::parse(text, file));
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  return ScenarioError({}, "", "", "");
}

}  // namespace

TEST_CASE("a valid scenario reads into exact SI values") {
  const Toy t = read_toy(Document::parse(kPilot, "pilot.yaml"));
  CHECK(t.nodes == 4);
  CHECK(t.gpus == 8);
  CHECK(t.nvlink_bytes_per_s == 900e9);
  CHECK(t.hbm_bytes == 85899345920);
  CHECK(t.nvls);
  CHECK(t.kind == "rail-optimized");
  CHECK(t.hosts_per_leaf == 32);
  REQUIRE(t.tiers.size() == 2);
  CHECK(t.tiers[0].link_bytes_per_s == 50e9);
  CHECK(t.tiers[0].latency == SimTime::from_ns(1000));
  CHECK(t.tiers[1].link_bytes_per_s == 100e9);
  CHECK(t.tiers[1].latency == SimTime::from_ns(2500));
  CHECK(t.price_usd_per_hour == 2.5);
  CHECK(t.mfu == 0.4);
}

TEST_CASE("defaults fill what the scenario leaves out") {
  const Toy t = read_toy(
      Document::parse("cluster:\n  nodes: 2\n  fabric:\n    hosts_per_leaf: 4\n    tiers: []\n", "small.yaml"));
  CHECK(t.nodes == 2);
  CHECK(t.gpus == 8);
  CHECK(t.nvlink_bytes_per_s == 450e9);
  CHECK_FALSE(t.nvls);
  CHECK(t.kind == "fat-tree");
  CHECK(t.tiers.empty());
  CHECK(t.price_usd_per_hour == 0.0);
}

TEST_CASE("the message format: file:line:column: key path: expected ..., found ...") {
  const ScenarioError e = error_of(replaced(kPilot, "hosts_per_leaf: 32", "hosts_per_leaf: -3"));
  CHECK(std::string(e.what()) ==
        "pilot.yaml:11:21: cluster.fabric.hosts_per_leaf: expected a positive integer, found \"-3\"");
  CHECK(e.file() == "pilot.yaml");
  CHECK(e.line() == 11);
  CHECK(e.column() == 21);
  CHECK(e.key_path() == "cluster.fabric.hosts_per_leaf");
  CHECK(e.expected() == "a positive integer");
  CHECK(e.found() == "\"-3\"");
  CHECK(e.hint().empty());
}

TEST_CASE("syntax errors carry the parser's line, column and message") {
  const ScenarioError map_value = error_of("a: 1\nb: c: d\n", "broken.yaml");
  CHECK(std::string(map_value.what()) ==
        "broken.yaml:2:5: expected valid YAML, found a syntax error (illegal map value)");
  CHECK(map_value.line() == 2);
  CHECK(map_value.column() == 5);
  CHECK(map_value.key_path().empty());

  const ScenarioError tab = error_of("cluster:\n  nodes: 4\n\tfabric: {}\n", "tab.yaml");
  CHECK(std::string(tab.what()) ==
        "tab.yaml:3:1: expected valid YAML, found a syntax error (illegal tab when looking for indentation)");

  const ScenarioError flow = error_of("cluster:\n  nodes: [1, 2]]\n");
  CHECK(flow.line() == 2);
  CHECK(flow.column() == 16);
  CHECK(flow.found() == "a syntax error (illegal flow end)");

  const ScenarioError two = error_of("cluster: {}\n---\ncluster: {}\n");
  CHECK(two.expected() == "one YAML document");
  CHECK(two.line() == 2);  // the "---" that starts the second
  CHECK(two.hint() == "a scenario file holds one document: remove the \"---\" line");

  // yaml-cpp 0.7 loops forever on a stray "," where a document starts (its issue #1040).
  const ScenarioError comma = error_of("\n  , pilot\ncluster: {}\n");
  CHECK(std::string(comma.what()) == "pilot.yaml:2:3: expected valid YAML, found a syntax error (unexpected \",\")");
}

TEST_CASE("an unknown key is rejected with a did-you-mean hint") {
  const ScenarioError e = error_of(replaced(kPilot, "nvlink: 900GB/s", "nvlnk: 900GB/s"));
  CHECK(std::string(e.what()) ==
        "pilot.yaml:6:5: cluster.node.nvlnk: expected a key of cluster.node (gpus, nvlink, hbm, nvls), "
        "found \"nvlnk\"\n  did you mean \"nvlink\"?");
  CHECK(e.hint() == "did you mean \"nvlink\"?");

  // Far from every known key: no guess.
  const ScenarioError far = error_of(replaced(kPilot, "nvlink: 900GB/s", "bisection_ratio: 2"));
  CHECK(far.key_path() == "cluster.node.bisection_ratio");
  CHECK(far.hint().empty());

  // A misspelt required key is missing; the hint points at the misspelling.
  const ScenarioError typo = error_of(replaced(kPilot, "hosts_per_leaf: 32", "host_per_leaf: 32"));
  CHECK(std::string(typo.what()) ==
        "pilot.yaml:10:5: cluster.fabric.hosts_per_leaf: expected a positive integer, found no value (the key is "
        "missing)\n  add \"hosts_per_leaf:\" under cluster.fabric (is \"host_per_leaf\" at pilot.yaml:11:5 a "
        "misspelling of it?)");

  const ScenarioError top = error_of(kPilot + std::string("exepct: {}\n"));
  CHECK(top.key_path() == "exepct");
  CHECK(top.line() == 19);
  CHECK(top.column() == 1);
  CHECK(top.expected() == "a top-level key (cluster, expect)");
  CHECK(top.hint() == "did you mean \"expect\"?");
}

TEST_CASE("the did-you-mean threshold is max(2, length / 3)") {
  using fathom::scenario::did_you_mean;
  using fathom::scenario::edit_distance;
  CHECK(edit_distance("hosts_per_leaf", "host_per_leaf") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  const std::vector<std::string> keys{"tiers", "radix", "oversubscription"};
  CHECK(did_you_mean("tires", keys) == "did you mean \"tiers\"?");  // distance 2, length 5: limit 2
  CHECK(did_you_mean("tx", keys).empty());                          // distance 3 from anything
  CHECK(did_you_mean("ovresubscriptoin", keys) == "did you mean \"oversubscription\"?");  // 4 <= 16 / 3
  CHECK(did_you_mean("oxxxxxxscription", keys).empty());                                  // 6 > 16 / 3
}

TEST_CASE("wrong YAML types name what was expected and what was found") {
  const ScenarioError list = error_of("cluster:\n  nodes: 4\n  fabric: [1, 2]\n");
  CHECK(std::string(list.what()) ==
        "pilot.yaml:3:11: cluster.fabric: expected a mapping of keys to values, found a sequence");

  const ScenarioError text = error_of(replaced(kPilot, "nodes: 4", "nodes: four"));
  CHECK(std::string(text.what()) == "pilot.yaml:3:10: cluster.nodes: expected a positive integer, found \"four\"");

  const ScenarioError big = error_of(replaced(kPilot, "nodes: 4", "nodes: 99999999999"));
  CHECK(big.expected() == "a positive integer from 1 to 2147483647");
  CHECK(big.found() == "\"99999999999\"");

  const ScenarioError yes = error_of(replaced(kPilot, "nvls: true", "nvls: yes"));
  CHECK(std::string(yes.what()) ==
        "pilot.yaml:8:11: cluster.node.nvls: expected a boolean (true or false), found \"yes\"\n"
        "  YAML 1.1 booleans such as yes, no, on, off are not accepted: write true or false");

  const ScenarioError quoted = error_of(replaced(kPilot, "nodes: 4", "nodes: \"4\""));
  CHECK(quoted.hint() == "the value is quoted, which makes it a string: remove the quotes");

  const ScenarioError scalar_for_list = error_of(replaced(
      kPilot,
      "    tiers:\n      - bandwidth: 400Gbps\n        latency: 1us\n      - {bandwidth: 800Gbps, latency: 2.5us}\n",
      "    tiers: 400Gbps\n"));
  CHECK(scalar_for_list.key_path() == "cluster.fabric.tiers");
  CHECK(scalar_for_list.expected() == "a sequence");
  CHECK(scalar_for_list.found() == "\"400Gbps\"");

  const ScenarioError null_value = error_of(replaced(kPilot, "nodes: 4", "nodes:"));
  CHECK(null_value.found() == "nothing");
  CHECK(null_value.line() == 3);
  CHECK(null_value.column() == 3);  // the key, since an empty value has no place of its own

  const ScenarioError key = error_of("? [a, b]\n: 1\n");
  CHECK(key.expected() == "a key name");
  CHECK(key.found() == "a sequence");

  const ScenarioError root = error_of("- cluster\n- expect\n");
  CHECK(std::string(root.what()) == "pilot.yaml:1:1: expected a mapping of keys to values, found a sequence");
}

TEST_CASE("a missing required key is reported at its mapping") {
  const ScenarioError e = error_of(replaced(kPilot, "  nodes: 4\n", ""));
  CHECK(std::string(e.what()) ==
        "pilot.yaml:3:3: cluster.nodes: expected a positive integer, found no value (the key is missing)\n"
        "  add \"nodes:\" under cluster");

  const ScenarioError empty = error_of("", "empty.yaml");
  CHECK(std::string(empty.what()) ==
        "empty.yaml: cluster: expected a mapping of keys to values, found no value (the key is missing)\n"
        "  add \"cluster:\" at the top level");
  const ScenarioError comments = error_of("# nothing yet\n", "empty.yaml");
  CHECK(comments.key_path() == "cluster");
}

TEST_CASE("units, choices and fractions are located like any other value") {
  const ScenarioError unit = error_of(replaced(kPilot, "nvlink: 900GB/s", "nvlink: 900gb/s"));
  CHECK(std::string(unit.what()) ==
        "pilot.yaml:6:13: cluster.node.nvlink: expected a bandwidth such as 400Gbps, 50GB/s or 3.35TB/s, "
        "found \"900gb/s\"\n  units are case-sensitive (b = bits, B = bytes): did you mean \"Gbps\" or \"GB/s\"?");

  const ScenarioError size = error_of(replaced(kPilot, "hbm: 80GiB", "hbm: 1e11"));
  CHECK(size.key_path() == "cluster.node.hbm");
  CHECK(size.expected() == "a size such as 80GiB, 512MB or 4KiB");

  const ScenarioError tier = error_of(replaced(kPilot, "latency: 2.5us", "latency: -2.5us"));
  CHECK(tier.key_path() == "cluster.fabric.tiers[1].latency");
  CHECK(tier.line() == 15);
  CHECK(tier.column() == 39);
  CHECK(tier.expected() == "a non-negative duration such as 2us, 1.5ms or 30s");

  const ScenarioError tier_key = error_of(replaced(kPilot, "latency: 1us", "latncy: 1us"));
  CHECK(tier_key.key_path() == "cluster.fabric.tiers[0].latency");
  CHECK(tier_key.line() == 13);
  CHECK(tier_key.column() == 9);
  CHECK(tier_key.hint() ==
        "add \"latency:\" under cluster.fabric.tiers[0] (is \"latncy\" at pilot.yaml:14:9 a misspelling of it?)");

  const ScenarioError kind = error_of(replaced(kPilot, "kind: rail-optimized", "kind: rail_optimized"));
  CHECK(std::string(kind.what()) ==
        "pilot.yaml:10:11: cluster.fabric.kind: expected one of \"fat-tree\" or \"rail-optimized\", found "
        "\"rail_optimized\"\n  did you mean \"rail-optimized\"?");

  const ScenarioError mfu = error_of(replaced(kPilot, "mfu: 40%", "mfu: 140%"));
  CHECK(mfu.expected() == "a fraction from 0 to 1, such as 0.4 or 40%");
  CHECK(mfu.found() == "\"140%\"");

  const ScenarioError price = error_of(replaced(kPilot, "price: $2.50/h", "price: 2.50"));
  CHECK(price.hint() == "write amounts of money with a dollar sign, such as $2.50");
  CHECK(price.line() == 16);
}

TEST_CASE("duplicate keys, declared keys that do not apply, forbidden keys, merge keys") {
  const ScenarioError dup = error_of(replaced(kPilot, "  nodes: 4\n", "  nodes: 4\n  nodes: 5\n"));
  CHECK(std::string(dup.what()) ==
        "pilot.yaml:4:3: cluster.nodes: expected each key at most once, found \"nodes\" a second time\n"
        "  the first is at pilot.yaml:3:3");

  // The toy schema declares "leaves" without reading it when tiers are given explicitly.
  const ScenarioError unused =
      error_of(replaced(kPilot, "    hosts_per_leaf: 32\n", "    hosts_per_leaf: 32\n    leaves: 4\n"));
  CHECK(unused.key_path() == "cluster.fabric.leaves");
  CHECK(unused.expected() == "no \"leaves\" key here");

  const ScenarioError forbidden =
      error_of(replaced(kPilot, "    hosts_per_leaf: 32\n", "    hosts_per_leaf: 32\n    cores: 4\n"));
  CHECK(std::string(forbidden.what()) ==
        "pilot.yaml:12:5: cluster.fabric.cores: expected no \"cores\" key here, found \"cores\"\n  only with tiers: 3");

  const ScenarioError merge2 =
      error_of("cluster:\n  <<: {nodes: 4}\n  nodes: 4\n  fabric: {hosts_per_leaf: 1, tiers: []}\n");
  CHECK(merge2.key_path() == "cluster.<<");
  CHECK(merge2.hint() == "YAML merge keys (<<) are not supported: write the keys out");
}

TEST_CASE("typed reads with required<T> and optional<T>") {
  Document doc = Document::parse(
      "name: llama3-70b\nlayers: 80\nscale: 0.5\nbig: 5000000000\nflag: false\nlist: [1, 2]\nnested: {a: 1}\n"
      "count: 1e8\npower: 10.2kW\nrate: 989TFLOPS\ncapex: $1.5e6\n",
      "t.yaml");
  MapReader r = doc.root();
  CHECK(r.required<std::string>("name") == "llama3-70b");
  CHECK(r.required<int>("layers") == 80);
  CHECK(r.required<double>("scale") == 0.5);
  CHECK(r.required<std::int64_t>("big") == 5'000'000'000);
  CHECK_FALSE(r.required<bool>("flag"));
  CHECK(r.optional<int>("absent", 7) == 7);
  CHECK(r.optional<std::string>("absent2", "x") == "x");
  CHECK(r.count("count") == 100'000'000);
  CHECK(r.watts("power") == 10200.0);
  CHECK(r.flops("rate") == 9.89e14);
  CHECK(r.usd("capex") == 1.5e6);
  CHECK(r.has("list"));
  CHECK_FALSE(r.has("nothing"));
  ListReader list = r.list("list");
  REQUIRE(list.size() == 2);
  CHECK(list.at(1).as<int>() == 2);
  CHECK(list.at(1).path() == "list[1]");
  CHECK_THROWS_WITH_AS(list.at(0).as<bool>(), "t.yaml:6:8: list[0]: expected a boolean (true or false), found \"1\"",
                       ScenarioError);
  MapReader nested = r.child("nested");
  CHECK(nested.required<int>("a") == 1);
  nested.finish();
  CHECK_THROWS_WITH_AS(r.required<int>("name", "a layer count"),
                       "t.yaml:1:7: name: expected a layer count, found \"llama3-70b\"", ScenarioError);
  CHECK_THROWS_WITH_AS(r.required<std::uint8_t>("big"), doctest::Contains("from 0 to 255"), ScenarioError);
  CHECK_THROWS_WITH_AS(r.required<int>("scale"), doctest::Contains("expected an integer, found \"0.5\""),
                       ScenarioError);
  CHECK_THROWS_WITH_AS(r.required<std::string>("missing"), doctest::Contains("missing: expected a string"),
                       ScenarioError);
  CHECK_THROWS_WITH_AS(
      r.fail("layers", "a multiple of 3", "layers are split evenly over 3 stages"),
      "t.yaml:2:9: layers: expected a multiple of 3, found \"80\"\n  layers are split evenly over 3 stages",
      ScenarioError);
  r.finish();
}

TEST_CASE("load_file reads a file and reports an unreadable one") {
  char path[] = "/tmp/fathom_scenario_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  {
    std::ofstream out(path);
    out << kPilot;
  }
  const Toy t = read_toy(Document::load_file(path));
  CHECK(t.hosts_per_leaf == 32);
  {
    std::ofstream out(path);
    out << replaced(kPilot, "gpus: 8", "gpus: 0");
  }
  try {
    read_toy(Document::load_file(path));
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 5);
    CHECK(e.key_path() == "cluster.node.gpus");
  }
  std::remove(path);
  CHECK_THROWS_WITH_AS(Document::load_file("/nonexistent/pilot.yaml"),
                       "/nonexistent/pilot.yaml: expected an existing file, found no such file", ScenarioError);
  CHECK_THROWS_WITH_AS(Document::load_file("/dev/zero"), "/dev/zero: expected a regular file, found a character device",
                       ScenarioError);
}

TEST_CASE("found text is quoted as written and kept on one line") {
  using fathom::scenario::quote_found;
  CHECK(quote_found("-3") == "\"-3\"");
  CHECK(quote_found("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quote_found("line\nnext\t\x01") == "\"line\\nnext\\t\\x01\"");
  CHECK(quote_found("2\u00b5s") == "\"2\u00b5s\"");
  CHECK(quote_found(std::string(200, 'x')) == "\"" + std::string(80, 'x') + "...\"");
  // A NUL or newline in a key or a file name never cuts or breaks the message.
  const ScenarioError e({std::string("a\0b", 3), 2, 1}, std::string("k\ney", 4), "x", quote_found("y"), "h\tint");
  CHECK(std::string(e.what()) == "a\\x00b:2:1: k\\ney: expected x, found \"y\"\n  h\\tint");
}
