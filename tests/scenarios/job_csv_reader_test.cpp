// CSVs of jobs with named columns, and the Microsoft ITP traces as they ship (a tar.gz of ten
// CSVs), against figures computed from the archive independently (Debian's python3, tarfile and
// csv modules, 2026-12-03).
#include "scenarios/job_csv_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "tests/support/text_mutations.hpp"

using namespace fathom::scenario;

namespace {

const std::string kArchive = std::string(FATHOM_SOURCE_DIR) + "/data/traces/msft-itp-elasticflow/raw-traces.tar.gz";

ItpTrace itp(const std::string& member) {
  return read_itp_archive(kArchive, {"s.yaml", 3, 5}, "workload.trace.file", member, {"s.yaml", 4, 5},
                          "workload.trace.member");
}

double gpu_seconds(const std::vector<fathom::jobs::TraceJob>& jobs) {
  double sum = 0;
  for (const auto& j : jobs) sum += j.run.to_seconds() * j.gpus;
  return sum;
}

std::string error_of(const std::string& text, const JobCsvColumns& columns = itp_columns()) {
  try {
    (void)parse_job_csv("j.csv", text, columns);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("no ScenarioError for: " << text);
  return {};
}

}  // namespace

TEST_CASE("ITP: each cluster's jobs and GPU-seconds, as the archive holds them") {
  // Rows and run x GPUs per member.
  const std::map<std::string, std::pair<std::size_t, double>> expected = {
      {"cluster01.csv", {1595, 81864453}},    {"cluster02.csv", {5778, 445494106}},
      {"cluster03.csv", {3011, 595593077}},   {"cluster04.csv", {15802, 2540458386}},
      {"cluster05.csv", {3629, 51491311}},    {"cluster06.csv", {2396, 445963163}},
      {"cluster07.csv", {12699, 1320479327}}, {"cluster08.csv", {13047, 241559936}},
      {"cluster09.csv", {11134, 140402737}},  {"cluster10.csv", {260, 14484569}}};
  for (const auto& [name, figures] : expected) {
    CAPTURE(name);
    const ItpTrace t = itp(name);
    CHECK(t.jobs.size() == figures.first);
    CHECK(gpu_seconds(t.jobs) == figures.second);
  }
  // cluster04.csv line 2: c9c620ea-4336-c1a9-8abe-e26bd13076b8,5810,288476,16; its last row has
  // no final newline after it.
  const ItpTrace c4 = itp("cluster04.csv");
  CHECK(c4.ids.front() == "c9c620ea-4336-c1a9-8abe-e26bd13076b8");
  CHECK(c4.jobs.front().line == 2);
  CHECK(c4.jobs.front().submit.ns() == 5810LL * 1'000'000'000);
  CHECK(c4.jobs.front().run.ns() == 288476LL * 1'000'000'000);
  CHECK(c4.jobs.front().gpus == 16);
  CHECK_FALSE(c4.jobs.front().estimate.has_value());
  CHECK(c4.jobs.front().user == -1);
  CHECK(c4.ids.back() == "7d4fa4db-d71c-077c-b82a-1c6f87e4cc5c");
  CHECK(c4.jobs.back().run.ns() == 33740LL * 1'000'000'000);
  // The longest job of the trace: cluster08.csv line 699.
  const ItpTrace c8 = itp("cluster08.csv");
  const auto longest =
      std::max_element(c8.jobs.begin(), c8.jobs.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
  CHECK(longest->line == 699);
  CHECK(longest->run.ns() == 1573360LL * 1'000'000'000);
  CHECK(c8.ids[static_cast<std::size_t>(longest - c8.jobs.begin())] == "d46b31b1-b038-7076-d9f7-23afadc379a9");
}

TEST_CASE("ITP: all ten clusters in one queue, by submit time, then member name, then row") {
  const ItpTrace t = itp("all");
  CHECK(t.members.size() == 10);
  CHECK(t.members.front() == "cluster01.csv");
  CHECK(t.jobs.size() == 69351);
  // 1,632,719.74 GPU-hours, the figure upstream publishes.
  CHECK(gpu_seconds(t.jobs) == 5877791065.0);
  CHECK(std::is_sorted(t.jobs.begin(), t.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; }));
  CHECK(t.ids.front() == "a11b4fc9-8f06-7093-2b93-bcb89acf0e7e");  // cluster07, submitted at 1,999 s
  CHECK(t.members[t.member_of.front()] == "cluster07.csv");
  CHECK(t.ids.back() == "dd7c5485-6c70-7048-5093-4c874f8ccb0b");  // cluster03, at 5,175,336 s
  CHECK(t.jobs.back().id == 69351);
  // Equal submit times across members keep member-name order.
  for (std::size_t k = 1; k < t.jobs.size(); ++k) {
    if (t.jobs[k].submit == t.jobs[k - 1].submit && t.member_of[k] != t.member_of[k - 1]) {
      CHECK(t.members[t.member_of[k - 1]] < t.members[t.member_of[k]]);
    }
  }
}

TEST_CASE("ITP: a member the archive does not have, and an archive that is not one") {
  try {
    (void)itp("cluster11.csv");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(e.line() == 4);
    CHECK(e.key_path() == "workload.trace.member");
    CHECK(e.expected().rfind("one of all, cluster01.csv, cluster02.csv", 0) == 0);
    CHECK(e.hint() == "did you mean \"cluster01.csv\"?");
  }
  const std::string lublin = std::string(FATHOM_SOURCE_DIR) + "/data/traces/rlscheduler-lublin256/lublin_256.swf";
  try {
    (void)read_itp_archive(lublin, {"s.yaml", 3, 5}, "workload.trace.file", "all", {}, "workload.trace.member");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("a tar header with a valid checksum") != std::string::npos);
  }
}

TEST_CASE("job CSV: named columns in any order, extra columns, users and groups numbered") {
  const JobCsvColumns columns{"name", "t_submit", "t_run", "gpu", "limit", "who", "team"};
  const JobCsvTrace t = parse_job_csv("j.csv",
                                      "\xEF\xBB\xBFteam,who,name,gpu,t_run,t_submit,limit,extra\n"
                                      "a,ann,j1,8,100.5,0,200,x\n"
                                      "\n"
                                      "b,bob,j2,0,7,0,10,y\n"
                                      "a,bob,j3,64,1,2.25,1,z",
                                      columns);
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.ids == std::vector<std::string>{"j1", "j2", "j3"});
  CHECK(t.users == std::vector<std::string>{"ann", "bob"});
  CHECK(t.groups == std::vector<std::string>{"a", "b"});
  CHECK(t.jobs[0].run.ns() == 100'500'000'000);
  CHECK(t.jobs[0].estimate->ns() == 200'000'000'000);
  CHECK(t.jobs[0].gpus == 8);
  CHECK(t.jobs[1].gpus == 0);
  CHECK(t.jobs[1].user == 1);
  CHECK(t.jobs[1].group == 1);
  CHECK(t.jobs[2].submit.ns() == 2'250'000'000);
  CHECK(t.jobs[2].line == 5);
  CHECK(t.jobs[2].user == 1);
  CHECK(t.jobs[2].group == 0);
}

TEST_CASE("job CSV: the columns a job needs must be named") {
  JobCsvColumns columns = itp_columns();
  columns.run.clear();
  CHECK_THROWS_AS(parse_job_csv("j.csv", "job_id,submission_time,duration,num_gpu\na,1,2,3\n", columns),
                  std::invalid_argument);
}

TEST_CASE("job CSV: what is wrong is said at its file, line and column") {
  const std::string header = "job_id,submission_time,duration,num_gpu\n";
  CHECK(error_of("") ==
        "j.csv:1:1: header: expected a header naming the columns "
        "job_id,submission_time,duration,num_gpu, found an empty line");
  CHECK(error_of("job_id,submission_time,num_gpu\nx,1,2\n") ==
        "j.csv:1:1: header: expected a column named \"duration\" (the columns "
        "job_id,submission_time,duration,num_gpu), found \"job_id,submission_time,num_gpu\"");
  CHECK(error_of(header) == "j.csv:1:1: row: expected at least one job after the header, found none");
  CHECK(error_of(header + "a,1,2\n") ==
        "j.csv:2:1: row: expected 4 comma-separated cells, as the header has, found 3 in \"a,1,2\"");
  CHECK(error_of(header + "a,1,,2\n") == "j.csv:2:5: duration: expected a value, found an empty cell");
  CHECK(error_of(header + "a,1,-2,2\n") ==
        "j.csv:2:5: duration: expected a non-negative number of seconds, found \"-2\"");
  CHECK(error_of(header + "a,1,2,1.5\n") == "j.csv:2:7: num_gpu: expected a whole number of GPUs, found \"1.5\"");
  CHECK(error_of(header + "a,9,2,1\nb,8,2,1\n") ==
        "j.csv:3:3: submission_time: expected a time at or after the previous row's (line 2), found \"8\"");
  CHECK(error_of(header + "a,1,2,1\na,2,2,1\n") ==
        "j.csv:3:1: job_id: expected an id not used by an earlier row (line 2), found \"a\"");
  CHECK(error_of(header + "a,1,1e99,1\n") ==
        "j.csv:2:5: duration: expected a non-negative number of seconds, "
        "found \"1e99\"");
  CHECK(error_of(header + "a,1,99999999999,1\n") ==
        "j.csv:2:5: duration: expected a time within 292 years, found \"99999999999\"");
}

TEST_CASE("fuzz: mutated job CSVs parse or fail with ScenarioError only") {
  const std::string valid =
      "job_id,submission_time,duration,num_gpu\n"
      "a,0,600,8\nb,0.5,601,1\nc,10,7200,64\n";
  const std::vector<std::string> tokens = {",", "\n", "-", ".", "e9", "job_id", "num_gpu", "\xEF\xBB\xBF", " "};
  fathom::test::FuzzRng rng(20261203);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string text = fathom::test::mutate_text(valid, rng, tokens);
    try {
      const JobCsvTrace t = parse_job_csv("fuzz.csv", text, itp_columns());
      CHECK(t.jobs.size() == t.ids.size());
      ++parsed;
    } catch (const ScenarioError& e) {
      CHECK(std::string(e.what()).rfind("fuzz.csv:", 0) == 0);
      ++rejected;
    }
  }
  CHECK(parsed > 100);
  CHECK(rejected > 100);
}
