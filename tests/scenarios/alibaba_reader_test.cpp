// The Alibaba GPU-sharing trace's readers on the files fathom ships, against the counts in their
// SOURCES.md and sums computed from the files with Python's csv module (2026-12-03), and on
// hand-written files for every error.
#include "scenarios/alibaba_reader.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "scenarios/csv_table.hpp"

using namespace fathom;
using namespace fathom::scenario;

namespace {

const std::string kFolder = std::string(FATHOM_SOURCE_DIR) + "/data/traces/alibaba-gpu-v2023/";

std::string pod_error(const std::string& text) {
  try {
    (void)parse_alibaba_pods("p.csv", text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("no ScenarioError for: " << text);
  return {};
}

const std::string kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

}  // namespace

TEST_CASE("Alibaba pods: the default pod list against its SOURCES.md") {
  const auto pods = read_alibaba_pods(kFolder + "openb_pod_list_default.csv", {"t.yaml", 1, 1}, "trace.file");
  REQUIRE(pods.size() == 8'152);
  std::map<int, int> by_gpus;
  std::map<jobs::PodPhase, int> by_phase;
  int shares = 0, unscheduled = 0;
  std::int64_t cpu = 0, memory = 0, gpu_milli = 0;
  for (const auto& p : pods) {
    ++by_gpus[p.demand.gpus];
    ++by_phase[p.phase];
    if (p.demand.is_share()) ++shares;
    if (!p.scheduled) ++unscheduled;
    cpu += p.demand.cpu_milli;
    memory += p.demand.memory_mib;
    gpu_milli += p.demand.gpu_demand_milli();
  }
  CHECK(by_gpus == std::map<int, int>{{0, 1088}, {1, 6989}, {2, 16}, {4, 15}, {8, 44}});
  CHECK(shares == 3'078);
  CHECK(by_phase[jobs::PodPhase::kRunning] == 5'193);
  CHECK(by_phase[jobs::PodPhase::kFailed] == 1'870);
  CHECK(by_phase[jobs::PodPhase::kPending] == 897);
  CHECK(by_phase[jobs::PodPhase::kSucceeded] == 192);
  CHECK(unscheduled == 897);  // the Pending pods
  CHECK(cpu == 85'436'012);
  CHECK(memory == 303'546'211);
  CHECK(gpu_milli == 6'086'800);
  // Row 2, pod 0001: a share of 460 thousandths, created at 427,061 s, line 3 of the file.
  const jobs::ShareTask& p = pods[1];
  CHECK(p.line == 3);
  CHECK(p.demand == jobs::ShareDemand{6000, 12288, 1, 460});
  CHECK(p.created == sim::SimTime::from_seconds(427061));
  CHECK(p.deleted == sim::SimTime::from_seconds(12902960));
  CHECK(p.scheduled == sim::SimTime::from_seconds(427061));
  CHECK(pods.back().created == sim::SimTime::from_seconds(12901761));  // SOURCES.md: span 0 - 12,901,761 s
}

TEST_CASE("Alibaba nodes: the GPU node list against its SOURCES.md") {
  const AlibabaNodes n = read_alibaba_nodes(kFolder + "openb_node_list_gpu_node.csv", {"t.yaml", 1, 1}, "trace.nodes");
  REQUIRE(n.nodes.size() == 1'213);
  std::map<std::string, std::map<int, int>> by_model;  // model -> GPUs per node -> nodes
  std::int64_t gpus = 0, cpu = 0, memory = 0;
  for (const auto& x : n.nodes) {
    ++by_model[n.models[static_cast<std::size_t>(x.model)]][x.gpus];
    gpus += x.gpus;
    cpu += x.cpu_milli;
    memory += x.memory_mib;
  }
  CHECK(gpus == 6'212);
  CHECK(cpu == 107'018'000);
  CHECK(memory == 503'828'480);
  CHECK(by_model["G2"][8] == 549);
  CHECK(by_model["T4"][2] == 387);
  CHECK(by_model["P100"][2] == 131);
  CHECK(by_model["G3"][8] == 39);
  CHECK(by_model["V100M16"][4] == 28);
  CHECK(by_model["V100M32"][8] == 21);
  CHECK(by_model["A10"][1] == 2);
}

TEST_CASE("Alibaba pods: every malformed row is located") {
  const std::string ok = "p0,1000,1024,1,500,,LS,Running,0,10,0\n";
  CHECK(parse_alibaba_pods("p.csv", kHeader + ok).size() == 1);
  // A pending pod has no scheduled time.
  CHECK_FALSE(parse_alibaba_pods("p.csv", kHeader + "p0,1000,1024,1,500,,LS,Pending,0,10,\n")[0].scheduled);
  const struct {
    std::string row, where, expected;
  } cases[] = {
      {"p0,1000,1024,1,0,,LS,Running,0,10,0", "p.csv:2:16: gpu_milli", "a share from 1 to 1000"},
      {"p0,1000,1024,0,500,,LS,Running,0,10,0", "p.csv:2:16: gpu_milli", "0 for a task of no GPU"},
      {"p0,1000,1024,2,500,,LS,Running,0,10,0", "p.csv:2:16: gpu_milli", "1000 (whole GPUs)"},
      {"p0,1000,1024,1,1001,,LS,Running,0,10,0", "p.csv:2:16: gpu_milli", "from 0 to 1000"},
      {"p0,-5,1024,1,500,,LS,Running,0,10,0", "p.csv:2:4: cpu_milli", "a whole number"},
      {"p0,1000,1024,1,500,,LS,Running,10,5,10", "p.csv:2:35: deletion_time", "at or after the creation time"},
      {"p0,1000,1024,1,500,,LS,Running,1e3,2000,0", "p.csv:2:32: creation_time", "non-negative"},
      {"p0,1000,1024,1,500,,LS,Running,,10,0", "p.csv:2:32: creation_time", "a value"},
      {"p0,1000,1024,1,500,,LS,Running,0,10", "p.csv:2:1: row", "11 comma-separated cells"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.row);
    const std::string e = pod_error(kHeader + c.row + "\n");
    CHECK(e.find(c.where) == 0);
    CHECK(e.find(c.expected) != std::string::npos);
  }
  CHECK(pod_error(kHeader + "p0,1,1,0,0,,LS,Running,50,60,50\np1,1,1,0,0,,LS,Running,40,60,40\n")
            .find("p.csv:3:24: creation_time: expected a time at or after the previous row's") == 0);
  CHECK(pod_error("name,cpu_milli\np0,1\n").find("p.csv:1:1: header: expected a column named \"memory_mib\"") == 0);
  CHECK(pod_error(kHeader).find("at least one pod") != std::string::npos);
  CHECK_THROWS_AS(parse_alibaba_nodes("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,1024,x,P100\n"),
                  ScenarioError);
  CHECK_THROWS_WITH_AS(read_alibaba_pods(kFolder + "missing.csv", {"t.yaml", 4, 9}, "workload.trace.file"),
                       doctest::Contains("t.yaml:4:9: workload.trace.file"), ScenarioError);
}

TEST_CASE("CsvTable: columns by name, blank lines, a byte order mark, located cells") {
  CsvTable t("x.csv",
             "\xEF\xBB\xBF"
             "b,a\n\n2,x\n3,y");
  CHECK(t.column("a", "a,b") == 1);
  CHECK(t.find("c") == -1);
  REQUIRE(t.next());
  CHECK(t.line() == 3);
  CHECK(t.whole(0, 0, 9) == 2);
  CHECK(t.text(1) == "x");
  REQUIRE(t.next());
  CHECK(t.line() == 4);
  CHECK_THROWS_WITH_AS(t.whole(1, 0, 9), doctest::Contains("x.csv:4:3: a: expected a whole number from 0 to 9"),
                       ScenarioError);
  CHECK_FALSE(t.next());
  CHECK_THROWS_AS(CsvTable("e.csv", ""), ScenarioError);
}
