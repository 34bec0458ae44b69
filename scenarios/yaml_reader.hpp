// A strict reader over yaml-cpp for scenario files: loads a document, applies `--set`
// overrides, and reads mappings key by key into plain values, so that every mistake in the
// input becomes a ScenarioError naming file, line, column, key path, what was expected and
// what was found. Models never see YAML: loaders use these readers to fill plain structs.
//
// Strictness, on purpose:
// - a mapping's reader knows the keys it asked for; finish() rejects any other key, with a
//   "did you mean" hint, so that a typo never silently falls back to a default;
// - integers, numbers and booleans must be plain YAML scalars ("4", not "'4'"), and
//   booleans are true or false only (YAML 1.1's yes/no/on/off are rejected);
// - a key given twice in one mapping is an error, not "the first one wins".
//
// Readers share the document's nodes and its origin; they are cheap to make and move-only
// where they track which keys were read.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "scenarios/errors.hpp"
#include "scenarios/units.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

class MapReader;
class ListReader;

// Where a document's nodes were written: its file, and the `--set` overrides applied to it.
// A value under a path an override wrote is located at that override, not in the file.
struct Origin {
  struct Override {
    std::string path;  // the part of the tree the override wrote, e.g. "cluster.fabric"
    std::string text;  // "cluster.fabric.radix=64", as given
  };
  std::string file;
  std::vector<Override> overrides;

  // The location of the node at `key_path` whose YAML mark is `mark`.
  Location locate(std::string_view key_path, const YAML::Mark& mark) const;
};

// One YAML node with its key path and location, read as one kind of value.
class ValueReader {
 public:
  ValueReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark);

  const std::string& path() const { return path_; }
  Location location() const;
  const YAML::Node& node() const { return node_; }
  const YAML::Mark& mark() const { return mark_; }
  bool is_null() const { return node_.IsNull(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }

  // bool, std::string, double or an integer type (range-checked). `what` replaces the
  // default description ("an integer", ...) in errors.
  template <class T>
  T as(std::string_view what = {}) const;

  double bandwidth(Sign sign = Sign::kNonNegative) const;  // bytes_per_s
  std::int64_t bytes(Sign sign = Sign::kNonNegative) const;
  std::int64_t count(Sign sign = Sign::kNonNegative) const;  // plain whole number, "1e8" allowed
  sim::SimTime duration(Sign sign = Sign::kNonNegative) const;
  double flops(Sign sign = Sign::kNonNegative) const;  // FLOP/s
  double watts(Sign sign = Sign::kNonNegative) const;
  double usd(Sign sign = Sign::kNonNegative) const;
  double usd_per_hour(Sign sign = Sign::kNonNegative) const;
  int positive_int() const;      // 1 .. INT_MAX
  int non_negative_int() const;  // 0 .. INT_MAX
  double fraction() const;       // 0 .. 1, as "0.4" or "40%"
  // One of `choices`, spelled exactly; a near miss gets a "did you mean".
  std::string one_of(std::initializer_list<std::string_view> choices) const;
  std::string one_of(const std::vector<std::string_view>& choices) const;

  MapReader map() const;    // this node as a mapping
  ListReader list() const;  // this node as a sequence

  // Rejects this value for a reason the caller checks (a relation between keys, a catalog
  // name that does not exist): "<where>: <path>: expected <expected>, found <this value>".
  [[noreturn]] void fail(std::string expected, std::string hint = {}) const;

 private:
  bool as_bool(std::string_view what) const;
  std::int64_t as_integer(std::string_view what, std::int64_t min, std::int64_t max) const;
  double as_double(std::string_view what) const;
  std::string as_string(std::string_view what) const;
  // The scalar text for a unit parser; a non-scalar is rejected with `quantity`'s wording.
  const std::string& unit_text(Quantity quantity, Sign sign) const;
  [[noreturn]] void rethrow(const UnitError& e) const;
  // The value read by `parse` (units.hpp) as `quantity`, its errors located at this value.
  template <class T>
  T quantity(Quantity quantity, Sign sign, T (*parse)(std::string_view, Sign)) const {
    const std::string& text = unit_text(quantity, sign);
    try {
      return parse(text, sign);
    } catch (const UnitError& e) {
      rethrow(e);
    }
  }

  std::shared_ptr<const Origin> origin_;
  YAML::Node node_;
  std::string path_;
  YAML::Mark mark_;
};

// A YAML sequence, element by element. Elements' paths read "tiers[1]".
class ListReader {
 public:
  ListReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark);

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  ValueReader at(std::size_t index) const;
  const std::string& path() const { return path_; }
  Location location() const;
  [[noreturn]] void fail(std::string expected, std::string hint = {}) const;

 private:
  std::shared_ptr<const Origin> origin_;
  std::vector<YAML::Node> items_;
  std::string path_;
  YAML::Mark mark_;
};

// A YAML mapping whose keys are declared by reading them. Every accessor declares its key;
// finish() then rejects keys present in the YAML that no accessor read.
class MapReader {
 public:
  // Rejects a node that is not a mapping (a null node reads as an empty mapping only when
  // `null_is_empty`), keys that are not scalars, and keys given twice.
  MapReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark,
            bool null_is_empty = false);
  MapReader(MapReader&&) = default;
  MapReader& operator=(MapReader&&) = default;
  MapReader(const MapReader&) = delete;
  MapReader& operator=(const MapReader&) = delete;

  const std::string& path() const { return path_; }
  Location location() const;

  // Declares keys without reading them, for "did you mean" hints and for keys read later.
  // Declaring all of a mapping's keys up front sharpens the hint a missing key gets.
  void declare(std::initializer_list<std::string_view> keys);
  // Whether the key is present; declares it, but does not count as reading it.
  bool has(std::string_view key);
  // The keys present, in file order (for a mapping whose keys are data, such as plan.vary).
  std::vector<std::string> keys() const;
  // The key's value, counted as read; nullopt when absent.
  std::optional<ValueReader> find(std::string_view key);
  // The key's value, counted as read; a missing key is an error expecting `what`.
  ValueReader value(std::string_view key, std::string_view what);

  template <class T>
  T required(std::string_view key, std::string_view what = {}) {
    auto v = find(key);
    if (!v) missing(key, what.empty() ? default_what<T>() : what);
    return v->template as<T>(what);
  }
  template <class T>
  T optional(std::string_view key, T default_value, std::string_view what = {}) {
    auto v = find(key);
    return v ? v->template as<T>(what) : std::move(default_value);
  }

  // Quantities with units (units.hpp), required or with a default in SI units.
  double bandwidth(std::string_view key, Sign sign = Sign::kNonNegative);  // bytes_per_s
  double bandwidth(std::string_view key, double default_bytes_per_s, Sign sign = Sign::kNonNegative);
  std::int64_t bytes(std::string_view key, Sign sign = Sign::kNonNegative);
  std::int64_t bytes(std::string_view key, std::int64_t default_bytes, Sign sign = Sign::kNonNegative);
  std::int64_t count(std::string_view key, Sign sign = Sign::kNonNegative);
  std::int64_t count(std::string_view key, std::int64_t default_count, Sign sign = Sign::kNonNegative);
  sim::SimTime duration(std::string_view key, Sign sign = Sign::kNonNegative);
  sim::SimTime duration(std::string_view key, sim::SimTime default_duration, Sign sign = Sign::kNonNegative);
  double flops(std::string_view key, Sign sign = Sign::kNonNegative);
  double flops(std::string_view key, double default_flops, Sign sign = Sign::kNonNegative);
  double watts(std::string_view key, Sign sign = Sign::kNonNegative);
  double watts(std::string_view key, double default_watts, Sign sign = Sign::kNonNegative);
  double usd(std::string_view key, Sign sign = Sign::kNonNegative);
  double usd(std::string_view key, double default_usd, Sign sign = Sign::kNonNegative);
  double usd_per_hour(std::string_view key, Sign sign = Sign::kNonNegative);
  double usd_per_hour(std::string_view key, double default_usd_per_hour, Sign sign = Sign::kNonNegative);
  int positive_int(std::string_view key);
  int positive_int(std::string_view key, int default_value);
  int non_negative_int(std::string_view key);
  int non_negative_int(std::string_view key, int default_value);
  double fraction(std::string_view key);
  double fraction(std::string_view key, double default_fraction);
  std::string one_of(std::string_view key, std::initializer_list<std::string_view> choices);
  std::string one_of(std::string_view key, std::initializer_list<std::string_view> choices,
                     std::string_view default_choice);

  // A nested mapping: required, or read as empty (all defaults) when absent.
  MapReader child(std::string_view key);
  MapReader optional_child(std::string_view key);
  // A nested sequence: required, or empty when absent.
  ListReader list(std::string_view key);
  ListReader optional_list(std::string_view key);

  // Rejects the key if present, saying why it does not apply ("only with tiers: 3").
  void forbid(std::string_view key, std::string_view why);
  // Rejects every key present that was not read: an unknown key, with a hint when it is
  // near a declared one, or a declared key that this configuration does not use.
  void finish();
  // Rejects the value of a present key, or the mapping when the key is absent.
  [[noreturn]] void fail(std::string_view key, std::string expected, std::string hint = {});

 private:
  // The quantity at `key`, read by ValueReader's `read`: required, or `fallback` when absent.
  template <class T>
  T quantity_at(std::string_view key, Quantity quantity, Sign sign, T (ValueReader::*read)(Sign) const);
  template <class T>
  T quantity_or(std::string_view key, T fallback, Sign sign, T (ValueReader::*read)(Sign) const);

  struct Entry {
    std::string key;
    YAML::Node value;
    YAML::Mark key_mark;
    bool read = false;
  };

  template <class T>
  static std::string_view default_what() {
    if constexpr (std::is_same_v<T, bool>)
      return "a boolean (true or false)";
    else if constexpr (std::is_same_v<T, std::string>)
      return "a string";
    else if constexpr (std::is_floating_point_v<T>)
      return "a number";
    else
      return "an integer";
  }

  void note(std::string_view key);
  Entry* entry(std::string_view key);
  std::string child_path(std::string_view key) const;
  [[noreturn]] void missing(std::string_view key, std::string_view what) const;
  [[noreturn]] void reject_unknown(const Entry& e, bool list_keys) const;

  std::shared_ptr<const Origin> origin_;
  std::string path_;
  YAML::Mark mark_;
  std::vector<Entry> entries_;  // in the file's order, for messages
  // entries_ by key: a mapping of n keys is read in O(n), not O(n^2) (issue 13: 80,000 keys took 39 s).
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::string> declared_;
};

// A loaded scenario document: a YAML tree, its origin, and the overrides applied to it.
class Document {
 public:
  // Syntax errors, unreadable files and files holding more than one YAML document throw
  // ScenarioError. An empty file is an empty mapping.
  static Document load_file(const std::string& file);
  static Document parse(std::string_view text, std::string file_name);

  // Applies "a.b[2].c=value" (the form of `--set`): the value is parsed as YAML (a scalar,
  // or a flow collection such as [1, 2]) and replaces or adds the key; missing mappings on
  // the way are created. A path through a scalar or a sequence, or an index out of range,
  // is a ScenarioError naming the override. Later overrides win.
  void apply_override(std::string_view assignment);
  void apply_overrides(const std::vector<std::string>& assignments);

  // The top-level mapping; a document that is not a mapping is rejected.
  MapReader root() const;
  const YAML::Node& tree() const { return tree_; }
  const std::string& file() const { return origin_->file; }

 private:
  Document(std::shared_ptr<Origin> origin, YAML::Node tree);

  std::shared_ptr<Origin> origin_;
  YAML::Node tree_;
};

namespace detail {
// "parent.key", or "key" at the top level: a key's path as messages spell it.
std::string join_path(std::string_view parent, std::string_view key);
}  // namespace detail

// "a sequence", "a mapping", "nothing", or the scalar quoted as written: what the input had.
std::string describe_found(const YAML::Node& node);

template <class T>
T ValueReader::as(std::string_view what) const {
  if constexpr (std::is_same_v<T, bool>) {
    return as_bool(what);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return as_string(what);
  } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return static_cast<T>(as_double(what));
  } else if constexpr (std::is_integral_v<T>) {
    static_assert(sizeof(T) <= sizeof(std::int64_t), "integers up to 64 bits");
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    constexpr auto kMaxInt64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return static_cast<T>(as_integer(what, static_cast<std::int64_t>(std::numeric_limits<T>::min()),
                                     static_cast<std::int64_t>(kMax < kMaxInt64 ? kMax : kMaxInt64)));
  } else {
    static_assert(sizeof(T) == 0, "ValueReader::as<T>: T is bool, std::string, double or an integer");
  }
}

}  // namespace fathom::scenario
