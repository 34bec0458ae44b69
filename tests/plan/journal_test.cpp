// The plan journal's lines keep a candidate exactly (every double to the bit, a reason with
// tabs, newlines and backslashes), and refuse what is not a whole line.
#include "plan/journal.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using fathom::plan::Evaluated;
using fathom::plan::journal_line;
using fathom::plan::parse_journal_line;
using fathom::plan::Status;

TEST_CASE("plan journal: a line gives back the candidate to the bit") {
  Evaluated e;
  e.index = 4095;
  e.status = Status::kMissesDeadline;
  e.reason = "30.74 days\tto train\nback\\slash";
  e.nodes = 1024;
  e.gpus = 8192;
  e.dp = 256;
  e.step_s = 1.0 / 3.0;
  e.time_to_train_s = 2.6e6 + std::nextafter(0.1, 1.0);
  e.mfu = 0.4281234567890123;
  e.tokens_per_s = 7.1e6;
  e.peak_memory_bytes = 6.5e10;
  e.breakdown.compute = 1.4197;
  e.breakdown.bubble = std::numeric_limits<double>::denorm_min();
  e.breakdown.optimizer = 0.0123;
  e.priced = true;
  e.capex_usd = 331.7e6;
  e.usd_per_run = 9.98e6;
  e.facility_power_w = 1.3e7;
  e.usd_per_gpu_hour = 2.0;
  const std::string line = journal_line(e);
  CHECK(line.find('\n') == std::string::npos);
  const auto back = parse_journal_line(line);
  REQUIRE(back.has_value());
  CHECK(back->index == e.index);
  CHECK(back->status == e.status);
  CHECK(back->reason == e.reason);
  CHECK(back->nodes == e.nodes);
  CHECK(back->gpus == e.gpus);
  CHECK(back->dp == e.dp);
  CHECK(back->priced);
  CHECK(back->step_s == e.step_s);
  CHECK(back->time_to_train_s == e.time_to_train_s);
  CHECK(back->mfu == e.mfu);
  CHECK(back->breakdown.bubble == e.breakdown.bubble);
  CHECK(back->breakdown.total() == e.breakdown.total());
  CHECK(back->usd_per_gpu_hour == e.usd_per_gpu_hour);
  CHECK(journal_line(*back) == line);
}

TEST_CASE("plan journal: a cut or altered line is not a candidate") {
  Evaluated e;
  e.index = 7;
  e.status = Status::kFeasible;
  const std::string line = journal_line(e);
  for (std::size_t cut = 0; cut < line.size(); ++cut) {
    CAPTURE(cut);
    // Cut inside a field or before the last: the field count or a number gives it away. Only a
    // cut inside the (here empty) reason could pass, and the reason is last and empty.
    CHECK_FALSE(parse_journal_line(line.substr(0, cut)).has_value());
  }
  CHECK_FALSE(parse_journal_line("x" + line).has_value());
  CHECK_FALSE(parse_journal_line(line + "\tmore").has_value());
  CHECK_FALSE(parse_journal_line("7\t9" + line.substr(line.find('\t', 2))).has_value());  // no such status
}
