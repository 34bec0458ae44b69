// The Standard Workload Format (SWF, version 2.2, of the Parallel Workloads Archive): a job log
// as header comments (`; Key: value`) and one line of 18 whitespace-separated numbers per job,
// -1 meaning "unknown" in any field. The reader keeps every field of every record, reads the
// header's keys, turns each record into a jobs::TraceJob, and checks the records against what
// the header promises (how many, how large, how long). Plain or gzip-compressed (`.swf.gz`).
//
// A record the simulation cannot use is skipped and counted by reason, with the first place it
// happened: one whose size (fields 8 and 5), submit time or run time is unknown. Anything that is
// not SWF (a wrong field count, a token that is not a number, a negative value other than -1, a
// fraction in a field that counts things, submit times that go back, a job number used twice, a
// header value that is not a number where the format wants one) is a ScenarioError at its
// file:line:column. Disagreements with the header (more records than MaxRecords, a job larger
// than MaxProcs) are counted, not fatal: real logs have them, and the report shows them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workloads/jobs/trace_job.hpp"
#include "scenarios/errors.hpp"

namespace fathom::scenario {

// The 18 fields, in file order (SWF 2.2).
enum SwfField : std::uint8_t {
  kSwfJob,                  // 1 job number
  kSwfSubmit,               // 2 submit time, s from the log's start
  kSwfWait,                 // 3 wait time, s
  kSwfRun,                  // 4 run time, s
  kSwfAllocatedProcessors,  // 5
  kSwfAverageCpu,           // 6 average CPU time used, s
  kSwfUsedMemory,           // 7 KB per processor
  kSwfRequestedProcessors,  // 8
  kSwfRequestedTime,        // 9 the user's estimate, s
  kSwfRequestedMemory,      // 10 KB per processor
  kSwfStatus,               // 11 1 completed, 0 failed, 5 cancelled, 2-4 partial
  kSwfUser,                 // 12
  kSwfGroup,                // 13
  kSwfExecutable,           // 14
  kSwfQueue,                // 15
  kSwfPartition,            // 16
  kSwfPrecedingJob,         // 17
  kSwfThinkTime,            // 18 s
  kSwfFields
};

// "field 5 (allocated processors)": how errors and reports name a field.
std::string swf_field_name(SwfField field);

// One line of the log, every field as written (-1: unknown). Time fields may hold fractions of
// a second; the others are whole numbers.
struct SwfRecord {
  std::array<double, kSwfFields> field{};
  int line = 0;
  double operator[](SwfField f) const { return field[f]; }
};

// A header comment: `; Key: value`, with continuation lines (a `;` line without a key) joined to
// the value by a newline. `line` is where the key is.
struct SwfHeaderEntry {
  std::string key;
  std::string value;
  int line = 0;
};

struct SwfHeader {
  std::vector<SwfHeaderEntry> entries;  // in file order, unknown keys included
  std::string version;                  // Version, "" when absent
  // The numeric keys SWF 2.2 defines, when present.
  std::optional<std::int64_t> max_jobs, max_records, max_nodes, max_procs, max_runtime_s, max_memory_kb,
      unix_start_time, time_zone;
  // The processors of the logged machine: MaxProcs, else MaxNodes (a log of one processor per
  // node, such as the Lublin model's, gives only MaxNodes).
  std::optional<std::int64_t> machine_processors() const { return max_procs ? max_procs : max_nodes; }
  const SwfHeaderEntry* find(std::string_view key) const;
};

// A count of records by reason, with the first place it happened.
struct TraceTally {
  std::string reason;
  int count = 0;
  Location first;
};

// Counts one more record left out for `reason`: a new tally, first seen `where`, or one more in
// the tally that has that reason.
void add_tally(std::vector<TraceTally>& tallies, const std::string& reason, const Location& where);

struct SwfTrace {
  SwfHeader header;
  std::vector<SwfRecord> records;         // every record, in file order
  std::vector<jobs::TraceJob> jobs;       // the records the simulation can use, in file order
  std::vector<TraceTally> skipped;        // records not in `jobs`, by reason
  std::vector<TraceTally> disagreements;  // records (or counts) the header does not allow
  int skipped_count() const;
};

// Parses `text` (the log, decompressed, LF line endings) named `file` in messages. A job's
// request is field 8 (requested processors) when known, else field 5 (allocated); its estimate
// field 9 when positive; its logged wait field 3 when known.
SwfTrace parse_swf(const std::string& file, std::string_view text);

// Reads and parses the log at `path` (plain or gzip). A file that cannot be read is a
// ScenarioError at `named_at`, the scenario key `key` that named it.
SwfTrace read_swf(const std::string& path, const Location& named_at, const std::string& key);

}  // namespace fathom::scenario
