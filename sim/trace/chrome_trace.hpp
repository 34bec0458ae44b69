// ChromeTrace: records a simulation timeline as Chrome trace-event JSON, the format that
// Perfetto (ui.perfetto.dev) and chrome://tracing open. docs/trace.md is the user's page.
//
// The file is the JSON object form, {"displayTimeUnit":"ns","traceEvents":[...]}, with
// metadata (process and thread names) first, then the events in the order they were
// recorded, one per line. Nothing depends on hash order or on floating-point formatting of
// time: ts and dur are exact decimals of microseconds printed from the integer nanoseconds
// of SimTime (1234567 ns -> 1234.567), so the same run gives the same bytes.
//
// The trace format groups tracks as processes (pid) holding threads (tid); models choose
// what they stand for, typically a node as a process and a GPU, NIC or stream as a thread.
// Give every thread a tid unique across the whole trace (a global GPU index, not the
// index within its node): Perfetto's JSON importer treats tids as system-wide thread ids
// and applies a thread_name by tid alone, so tid 1 in two processes can swap names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/time.hpp"

namespace fathom::sim {

// Exact microseconds with three decimals from integer nanoseconds: 1234567 ns -> "1234.567",
// -1 ns -> "-0.001". Never goes through a double, which would round beyond 2^53 ns (104 days).
std::string format_trace_us(SimTime t);

class ChromeTrace {
 public:
  // Named numbers attached to an event, shown in the viewer's details pane (args) or drawn as
  // counter tracks (series). Keys should carry the value's unit, as everywhere in fathom:
  // {"bytes", 1.0e9}, {"busy_fraction", 0.7}.
  using Args = std::vector<std::pair<std::string, double>>;

  // Metadata: the name shown for a process or a thread track. Naming the same process or
  // thread again replaces the name in place, so the file keeps one name per track.
  void process_name(int pid, std::string name);
  void thread_name(int pid, int tid, std::string name);

  // A slice on thread (pid, tid) from start to start + duration ("X" event). Throws
  // std::invalid_argument for a negative duration or a non-finite arg.
  void complete(int pid, int tid, std::string name, SimTime start, SimTime duration, std::string category = {},
                Args args = {});

  // A point in time on thread (pid, tid) ("i" event with thread scope).
  void instant(int pid, int tid, std::string name, SimTime t, std::string category = {}, Args args = {});

  // Values of the counter track `name` of process `pid` from time t on ("C" event); each
  // series entry is one line of the counter. Throws std::invalid_argument for a non-finite value.
  void counter(int pid, std::string name, SimTime t, Args series);

  // Recorded events, metadata not included.
  std::size_t event_count() const { return events_.size(); }

  void write(std::ostream& out) const;
  // Through write_file_atomically: a failure leaves any previous trace at `path` intact.
  void write_file(const std::filesystem::path& path) const;

 private:
  struct Metadata {
    int pid;
    int tid;  // unused for a process name
    bool is_thread;
    std::string name;
  };

  struct Event {
    char phase;  // 'X', 'i' or 'C'
    int pid;
    int tid;
    std::uint32_t name;      // index into strings_
    std::uint32_t category;  // index into strings_; 0 is ""
    SimTime start;
    SimTime duration;
    Args args;
  };

  void name_track(int pid, int tid, bool is_thread, std::string name);
  std::uint32_t intern(std::string s);
  void check_args(const char* what, const std::string& name, const Args& args) const;

  std::vector<Metadata> metadata_;
  std::map<std::tuple<int, int, bool>, std::size_t> metadata_index_;
  // Event names and categories repeat millions of times in a long run, so events hold an
  // index and each distinct string is stored once (twice, counting the lookup table).
  std::vector<std::string> strings_{std::string()};
  std::unordered_map<std::string, std::uint32_t> string_ids_{{std::string(), 0}};
  std::vector<Event> events_;
};

}  // namespace fathom::sim
