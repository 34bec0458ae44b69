// Jobs from a CSV file whose columns a scenario names (a generic trace, an Azure-style export),
// and the Microsoft ITP traces (ElasticFlow, ASPLOS'23), which ship as CSVs of that shape inside
// one `.tar.gz`. Each row becomes a jobs::TraceJob; text ids, users and groups are kept once,
// in side tables, so that a million-job trace holds no string per job.
//
// Errors are ScenarioErrors at file:line:column, the key being the column's name: a header
// without a named column, a row with another number of cells, an empty cell, a value that is
// not a non-negative number (whole for a GPU count), a time beyond the clock, a submit time
// before the previous row's, an id used twice.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/workloads/jobs/trace_job.hpp"
#include "scenarios/errors.hpp"

namespace fathom::scenario {

// The header names of the columns that hold each field. `submit`, `run` and `gpus` are
// required; an empty name means the CSV does not have that field. Times are in seconds.
struct JobCsvColumns {
  std::string id;        // a text id per job; empty: the row number is the id
  std::string submit;    // s from the trace's origin
  std::string run;       // s
  std::string gpus;      // whole GPUs
  std::string estimate;  // s, the user's requested time
  std::string user;      // text, numbered 0, 1, ... by first appearance
  std::string group;     // text, the same way
};

// The ITP CSVs' columns: job_id, submission_time, duration, num_gpu.
JobCsvColumns itp_columns();

struct JobCsvTrace {
  std::vector<jobs::TraceJob> jobs;        // in file order
  std::vector<std::string> ids;            // per job: its text id ("" without an id column)
  std::vector<std::string> users, groups;  // by number
};

// Parses `text` (LF line endings; a final newline optional) named `file` in messages. Throws
// std::invalid_argument when `columns` leaves submit, run or gpus unnamed (a caller's mistake).
JobCsvTrace parse_job_csv(const std::string& file, std::string_view text, const JobCsvColumns& columns);

// The same from a file, plain or gzip; a file that cannot be read is a ScenarioError at
// `named_at` (`key`).
JobCsvTrace read_job_csv(const std::string& path, const Location& named_at, const std::string& key,
                         const JobCsvColumns& columns);

// The ITP archive's jobs: one member (`cluster04.csv`), or every `clusterNN.csv` in one queue
// ("all"), ordered by submit time, then member name, then row. `member_of[k]` is the member of
// job k, by its index in `members`. An archive that cannot be read is a ScenarioError at
// `named_at` (`key`); a member the archive does not have is one at `member_at` (`member_key`),
// with the members it does have.
struct ItpTrace {
  std::vector<std::string> members;  // the CSV members read, by name
  std::vector<jobs::TraceJob> jobs;
  std::vector<std::string> ids;
  std::vector<std::uint8_t> member_of;
};
ItpTrace read_itp_archive(const std::string& path, const Location& named_at, const std::string& key,
                          const std::string& member, const Location& member_at, const std::string& member_key);

}  // namespace fathom::scenario
