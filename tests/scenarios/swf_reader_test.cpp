// The SWF reader on the two logs fathom ships (data/traces/), every field against each file's
// own header and against figures computed from the files independently (Debian's python3 on
// the decompressed text, 2026-12-03), and on a hand-written log whose every value is known.
#include "scenarios/swf_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/scenarios/scenario_files.hpp"
#include "tests/support/text_mutations.hpp"

using fathom::jobs::JobStatus;
using namespace fathom::scenario;  // the reader and its SwfField names

namespace {

std::string source(const std::string& path) { return std::string(FATHOM_SOURCE_DIR) + "/" + path; }

SwfTrace read(const std::string& path) { return read_swf(source(path), {"test.yaml", 1, 1}, "trace.file"); }

// The message of the ScenarioError parsing `text` throws (a test fails if it throws none).
std::string error_of(const std::string& text) {
  try {
    (void)parse_swf("t.swf", text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("no ScenarioError for: " << text);
  return {};
}

}  // namespace

TEST_CASE("SWF: the KTH SP2 log (gzip) against its own header") {
  const SwfTrace t = read("data/traces/pwa-kth-sp2/KTH-SP2-1996-2.1-cln.swf.gz");
  const auto& h = t.header;
  CHECK(h.version == "2.2");
  CHECK(h.max_jobs == 28490);
  CHECK(h.max_records == 28476);
  CHECK(h.max_nodes == 100);
  CHECK(h.max_procs == 100);
  CHECK(h.machine_processors() == 100);
  CHECK(h.unix_start_time == 843480031);
  CHECK(h.time_zone == 3600);
  CHECK_FALSE(h.max_runtime_s.has_value());
  REQUIRE(h.find("Computer") != nullptr);
  CHECK(h.find("Computer")->value == "IBM SP2");
  CHECK(h.find("Computer")->line == 2);
  // Three spaces after the colon; a continuation line joined to its key's value.
  CHECK(h.find("EndTime")->value == "Fri Aug 29 10:55:01 CEST 1997");
  CHECK(h.find("Information")->value == "http://www.pdc.kth.se/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/");
  CHECK(h.find("Note")->value == "uses the EASY scheduler");
  // The header's promises hold for every record.
  CHECK(t.records.size() == 28476);
  CHECK(t.disagreements.empty());
  // Job 27313 (line 27323) has neither a requested nor an allocated size.
  REQUIRE(t.skipped.size() == 1);
  CHECK(t.skipped[0].count == 1);
  CHECK(t.skipped[0].first.line == 27323);
  CHECK(t.skipped[0].first.column == 32);
  CHECK(t.jobs.size() == 28475);
  // Line 25, every field: 15 599850 192180 3477 4 -1 -1 4 53940 -1 1 12 12 -1 -1 -1 -1 -1.
  const SwfRecord& r = t.records.front();
  CHECK(r.line == 25);
  const std::vector<double> line25 = {15, 599850, 192180, 3477, 4, -1, -1, 4, 53940, -1, 1, 12, 12, -1, -1, -1, -1, -1};
  for (int f = 0; f < kSwfFields; ++f) {
    CAPTURE(f);
    CHECK(r.field[static_cast<std::size_t>(f)] == line25[static_cast<std::size_t>(f)]);
  }
  const fathom::jobs::TraceJob& j = t.jobs.front();
  CHECK(j.id == 15);
  CHECK(j.submit.ns() == 599850LL * 1'000'000'000);
  CHECK(j.run.ns() == 3477LL * 1'000'000'000);
  CHECK(j.estimate->ns() == 53940LL * 1'000'000'000);
  CHECK(j.logged_wait->ns() == 192180LL * 1'000'000'000);
  CHECK(j.gpus == 4);
  CHECK(j.user == 12);
  CHECK(j.group == 12);
  CHECK(j.status == JobStatus::kCompleted);
  CHECK(t.jobs.back().id == 28490);
  CHECK(t.jobs.back().submit.ns() == 29363618LL * 1'000'000'000);
  // Figures computed from the file independently: the logged waits (mean 15,295.87 s over all
  // 28,476 records, median 300 s), 475 jobs that outran their estimate, 7,946 failed jobs, and
  // 2,011,271,357 processor-seconds asked for (field 8, else field 5).
  double wait_sum = 0;
  std::vector<std::int64_t> waits;
  for (const SwfRecord& rec : t.records) {
    wait_sum += rec[kSwfWait];
    waits.push_back(static_cast<std::int64_t>(rec[kSwfWait]));
  }
  CHECK(wait_sum / static_cast<double>(t.records.size()) == doctest::Approx(15295.8748).epsilon(1e-8));
  std::nth_element(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(waits.size() / 2), waits.end());
  CHECK(waits[waits.size() / 2] == 300);
  int overran = 0, failed = 0;
  double processor_seconds = 0;
  for (const auto& job : t.jobs) {
    overran += job.estimate && job.run > *job.estimate ? 1 : 0;
    failed += job.status == JobStatus::kFailed ? 1 : 0;
    processor_seconds += job.run.to_seconds() * job.gpus;
  }
  CHECK(overran == 475);
  CHECK(failed == 7946);
  CHECK(processor_seconds == 2011271357.0);
  // File order: submit times never go back.
  CHECK(std::is_sorted(t.jobs.begin(), t.jobs.end(), [](const auto& a, const auto& b) { return a.submit < b.submit; }));
}

TEST_CASE("SWF: the Lublin-Feitelson model log (256 processors, no MaxProcs, no estimates)") {
  const SwfTrace t = read("data/traces/rlscheduler-lublin256/lublin_256.swf");
  const auto& h = t.header;
  CHECK(h.version == "2");
  CHECK_FALSE(h.max_procs.has_value());
  CHECK(h.max_nodes == 256);
  CHECK(h.machine_processors() == 256);
  CHECK(h.max_runtime_s == 162754);
  CHECK(h.max_records == 10000);
  CHECK(t.records.size() == 10000);
  CHECK(t.jobs.size() == 10000);
  CHECK(t.skipped.empty());
  CHECK(t.disagreements.empty());
  // Line 8: 1 5094 -1 12072 16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1.
  const auto& first = t.jobs.front();
  CHECK(first.line == 8);
  CHECK(first.id == 1);
  CHECK(first.submit.ns() == 5094LL * 1'000'000'000);
  CHECK(first.run.ns() == 12072LL * 1'000'000'000);
  CHECK(first.gpus == 16);  // field 8 is unknown, so field 5
  CHECK_FALSE(first.estimate.has_value());
  CHECK_FALSE(first.logged_wait.has_value());
  CHECK(first.user == -1);
  CHECK(t.records.front()[kSwfQueue] == 0);
  CHECK(t.jobs.back().id == 10000);
  CHECK(t.jobs.back().submit.ns() == 7711701LL * 1'000'000'000);
  CHECK(std::count_if(t.jobs.begin(), t.jobs.end(), [](const auto& j) { return j.gpus == 256; }) == 180);
}

TEST_CASE("SWF: a hand-written log, every field and rule") {
  const std::string text =
      "; Version: 2.2\n"
      "; Computer: a test machine\n"
      ";   with a second line\n"
      ";\n"
      "; MaxProcs: 8\n"
      "; MaxRecords: 4\n"
      "; MaxJobs: 9\n"
      "; MaxRuntime: 100\n"
      "; SomethingElse: kept as written\n"
      "\n"
      "  1   0.5  2.25  10  4  9.5  1024  6  20  2048  1  7  3  11  0  2  -1  -1\n"
      "2 0.5 -1 100 -1 -1 -1 -1 -1 -1 5 -1 -1 -1 -1 -1 1 30\n"
      "; a note between records\n"
      "9\t1\t0\t0\t8\t-1\t-1\t8\t-1\t-1\t3\t1\t1\t-1\t-1\t-1\t-1\t-1\n"
      "4 2 0 101 9 -1 -1 -1 50 -1 0 2 2 -1 -1 -1 -1 -1";  // no final newline
  const SwfTrace t = parse_swf("hand.swf", text);
  CHECK(t.header.find("Computer")->value == "a test machine\nwith a second line");
  CHECK(t.header.find("SomethingElse")->value == "kept as written");
  CHECK(t.header.entries.size() == 7);
  REQUIRE(t.records.size() == 4);
  const std::vector<double> first = {1, 0.5, 2.25, 10, 4, 9.5, 1024, 6, 20, 2048, 1, 7, 3, 11, 0, 2, -1, -1};
  for (int f = 0; f < kSwfFields; ++f) CHECK(t.records[0].field[static_cast<std::size_t>(f)] == first[f]);
  CHECK(t.records[1][kSwfThinkTime] == 30);
  CHECK(t.records[1][kSwfPrecedingJob] == 1);
  // Record 2 has no size: skipped. Records 1, 9 and 4 are jobs.
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.skipped_count() == 1);
  CHECK(t.skipped[0].first.line == 12);
  const auto& a = t.jobs[0];
  CHECK(a.gpus == 6);  // requested (field 8) before allocated (field 5)
  CHECK(a.submit.ns() == 500'000'000);
  CHECK(a.logged_wait->ns() == 2'250'000'000);
  CHECK(a.estimate->ns() == 20'000'000'000);
  CHECK(a.user == 7);
  CHECK(a.group == 3);
  CHECK(a.status == JobStatus::kCompleted);
  CHECK(t.jobs[1].status == JobStatus::kPartial);
  CHECK(t.jobs[1].run.ns() == 0);
  CHECK(t.jobs[2].status == JobStatus::kFailed);
  CHECK(t.jobs[2].gpus == 9);
  // Against the header: 9 processors above MaxProcs 8, a run of 101 s above MaxRuntime 100.
  CHECK(t.disagreements.size() == 2);
  for (const auto& d : t.disagreements) {
    CHECK(d.count == 1);
    CHECK(d.first.line == 15);
  }
}

TEST_CASE("SWF: what is not SWF is an error at its file, line and column") {
  const std::string ok = "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
  CHECK(error_of("") == "t.swf:1:1: records: expected an SWF job log, found an empty file");
  CHECK(error_of("; Version: 2.2\n;\n") == "t.swf:2:1: records: expected at least one job record, found none");
  CHECK(
      error_of("1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1\n") ==
      "t.swf:1:1: record: expected 18 whitespace-separated fields, found 17 in \"1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 "
      "-1 -1\"");
  CHECK(error_of(ok + "2 5 0 10 4x -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:2:10: field 5 (allocated processors): expected a whole number (-1: unknown), found \"4x\"");
  CHECK(error_of("1 0 0 10 2.5 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:1:10: field 5 (allocated processors): expected a whole number (-1: unknown), found \"2.5\"");
  CHECK(error_of("1 0 0 -3 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:1:7: field 4 (run time): expected -1 (unknown) or a non-negative number, found \"-3\"");
  CHECK(error_of("1 0 0 1e3 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:1:7: field 4 (run time): expected a number of seconds (-1: unknown), found \"1e3\"");
  CHECK(error_of("1 9 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 8 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:2:3: field 2 (submit time): expected a time at or after the previous record's (line 1), found \"8\"");
  CHECK(error_of(ok + ok) ==
        "t.swf:2:1: field 1 (job number): expected a job number not used by an earlier record (line 1), found \"1\"");
  CHECK(error_of("0 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:1:1: field 1 (job number): expected a job number of 1 or more, found \"0\"");
  CHECK(error_of("; MaxProcs:  a hundred\n" + ok) ==
        "t.swf:1:14: MaxProcs: expected a whole number, found \"a hundred\"");
  CHECK(error_of("1 0 0 99999999999 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n") ==
        "t.swf:1:7: field 4 (run time): expected a time within 292 years, found \"99999999999\"");
}

TEST_CASE("SWF: files that cannot be read are errors at the key that named them") {
  try {
    (void)read_swf("/nonexistent/log.swf", {"s.yaml", 4, 9}, "workload.trace.file");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "s.yaml:4:9: workload.trace.file: expected an SWF job log, plain or gzip (an existing file), found "
          "\"/nonexistent/log.swf\": no such file");
  }
  // Gzip's magic bytes, then garbage: a corrupt stream, not a crash.
  const std::string bad =
      fathom::test::write_scratch_file("corrupt.swf.gz", std::string("\x1f\x8b\x08\x00garbage", 11));
  try {
    (void)read_swf(bad, {"s.yaml", 4, 9}, "workload.trace.file");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()).find("expected an SWF job log, plain or gzip (gzip data)") != std::string::npos);
  }
}

TEST_CASE("fuzz: mutated SWF logs parse or fail with ScenarioError only") {
  const std::string valid =
      "; Version: 2.2\n; MaxProcs: 8\n;   continued\n"
      "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "2 0.5 1.25 7 8 -1 -1 -1 20 -1 0 2 1 -1 -1 -1 -1 -1\n"
      "3 1 -1 -1 2 -1 -1 2 -1 -1 5 1 1 -1 -1 -1 -1 -1\n";
  const std::vector<std::string> tokens = {"-1",           " ",   "\t", ".",           ";",  ": ", "\n",
                                           "; MaxProcs: ", "1e3", "+",  "99999999999", "0.5"};
  fathom::test::FuzzRng rng(20261203);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string text = fathom::test::mutate_text(valid, rng, tokens);
    try {
      const SwfTrace t = parse_swf("fuzz.swf", text);
      CHECK(t.jobs.size() + static_cast<std::size_t>(t.skipped_count()) == t.records.size());
      ++parsed;
    } catch (const ScenarioError& e) {
      CHECK(std::string(e.what()).rfind("fuzz.swf:", 0) == 0);
      ++rejected;
    }
  }
  // Both outcomes happen: the mutations reach past the first check.
  CHECK(parsed > 100);
  CHECK(rejected > 100);
}
