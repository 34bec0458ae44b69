#include "sim/trace/chrome_trace.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/output/atomic_file.hpp"
#include "sim/output/json_writer.hpp"

namespace fathom::sim {

namespace {

// "-9223372036854775.808" is the longest: 22 characters.
struct UsText {
  char data[32];
  std::size_t size;
  std::string_view view() const { return {data, size}; }
};

UsText us_text(SimTime t) {
  const std::int64_t ns = t.ns();
  // The magnitude as unsigned, so that INT64_MIN does not overflow.
  const std::uint64_t mag = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  UsText out{};
  char* p = out.data;
  if (ns < 0) *p++ = '-';
  p = std::to_chars(p, out.data + sizeof out.data, mag / 1000).ptr;
  const auto frac = static_cast<unsigned>(mag % 1000);
  *p++ = '.';
  *p++ = static_cast<char>('0' + frac / 100);
  *p++ = static_cast<char>('0' + frac / 10 % 10);
  *p++ = static_cast<char>('0' + frac % 10);
  out.size = static_cast<std::size_t>(p - out.data);
  return out;
}

void write_args(JsonWriter& w, const ChromeTrace::Args& args) {
  w.key("args");
  w.begin_object();
  for (const auto& [key, v] : args) w.member(key, v);
  w.end_object();
}

}  // namespace

std::string format_trace_us(SimTime t) { return std::string(us_text(t).view()); }

void ChromeTrace::name_track(int pid, int tid, bool is_thread, std::string name) {
  const auto key = std::make_tuple(pid, is_thread ? tid : 0, is_thread);
  const auto [it, inserted] = metadata_index_.try_emplace(key, metadata_.size());
  if (inserted) {
    metadata_.push_back(Metadata{pid, is_thread ? tid : 0, is_thread, std::move(name)});
  } else {
    metadata_[it->second].name = std::move(name);
  }
}

void ChromeTrace::process_name(int pid, std::string name) { name_track(pid, 0, false, std::move(name)); }

void ChromeTrace::thread_name(int pid, int tid, std::string name) { name_track(pid, tid, true, std::move(name)); }

std::uint32_t ChromeTrace::intern(std::string s) {
  const auto it = string_ids_.find(s);
  if (it != string_ids_.end()) return it->second;
  if (strings_.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("ChromeTrace: more than 2^32 distinct event names and categories");
  }
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.push_back(s);
  string_ids_.emplace(std::move(s), id);
  return id;
}

// Checked when recorded rather than when written, so the error points at the model that
// produced the value instead of surfacing at the end of a long run.
void ChromeTrace::check_args(const char* what, const std::string& name, const Args& args) const {
  for (const auto& [key, v] : args) {
    if (!std::isfinite(v)) {
      throw std::invalid_argument(std::string("ChromeTrace::") + what + ": event \"" + name + "\" has " +
                                  (std::isnan(v) ? "NaN" : "an infinite value") + " for \"" + key +
                                  "\"; JSON has no NaN or infinity");
    }
  }
}

void ChromeTrace::complete(int pid, int tid, std::string name, SimTime start, SimTime duration, std::string category,
                           Args args) {
  if (duration < SimTime::zero()) {
    throw std::invalid_argument("ChromeTrace::complete: event \"" + name + "\" has a negative duration of " +
                                std::to_string(duration.ns()) + " ns");
  }
  check_args("complete", name, args);
  events_.push_back(
      Event{'X', pid, tid, intern(std::move(name)), intern(std::move(category)), start, duration, std::move(args)});
}

void ChromeTrace::instant(int pid, int tid, std::string name, SimTime t, std::string category, Args args) {
  check_args("instant", name, args);
  events_.push_back(
      Event{'i', pid, tid, intern(std::move(name)), intern(std::move(category)), t, SimTime::zero(), std::move(args)});
}

void ChromeTrace::counter(int pid, std::string name, SimTime t, Args series) {
  check_args("counter", name, series);
  events_.push_back(Event{'C', pid, 0, intern(std::move(name)), 0, t, SimTime::zero(), std::move(series)});
}

void ChromeTrace::write(std::ostream& out) const {
  // Pretty to two levels: the outer object and the event array are laid out, each event
  // stays on one line, so a trace diffs line by line and still opens in any viewer.
  JsonWriter w(out, JsonLayout::kPretty, 2);
  w.begin_object();
  w.member("displayTimeUnit", "ns");
  w.key("traceEvents");
  w.begin_array();

  for (const Metadata& m : metadata_) {
    w.begin_object();
    w.member("ph", "M");
    w.member("pid", m.pid);
    if (m.is_thread) w.member("tid", m.tid);
    w.member("name", m.is_thread ? "thread_name" : "process_name");
    w.key("args");
    w.begin_object();
    w.member("name", m.name);
    w.end_object();
    w.end_object();
  }

  // ts and dur come before name and args on purpose: Perfetto's tokenizer finds them by
  // scanning each event's keys in order and reads their text as exact decimals, so they
  // should not sit behind strings and objects it has to skip first.
  for (const Event& e : events_) {
    const char phase[2] = {e.phase, '\0'};
    w.begin_object();
    w.member("ph", phase);
    w.member("pid", e.pid);
    if (e.phase != 'C') w.member("tid", e.tid);
    w.key("ts");
    w.raw_number(us_text(e.start).view());
    if (e.phase == 'X') {
      w.key("dur");
      w.raw_number(us_text(e.duration).view());
    }
    if (e.phase == 'i') w.member("s", "t");
    w.member("name", strings_[e.name]);
    if (e.category != 0) w.member("cat", strings_[e.category]);
    if (!e.args.empty() || e.phase == 'C') write_args(w, e.args);
    w.end_object();
  }

  w.end_array();
  w.end_object();
  out.put('\n');
}

void ChromeTrace::write_file(const std::filesystem::path& path) const {
  write_file_atomically(path, [this](std::ostream& out) { write(out); });
}

}  // namespace fathom::sim
