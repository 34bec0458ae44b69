#include "scenarios/yaml_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <sstream>

namespace fathom::scenario {
namespace {

// Lists of accepted keys longer than this are cut in messages; the hint names the likely one.
constexpr std::size_t kMaxKeysListed = 12;

// Plain, or explicitly tagged with the YAML core type that the caller reads.
bool is_plain_or_tagged(const YAML::Node& node, std::string_view core_type) {
  const std::string& tag = node.Tag();
  return tag == "?" || tag == std::string("tag:yaml.org,2002:") + std::string(core_type);
}

const char* kQuotedHint = "the value is quoted, which makes it a string: remove the quotes";

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
    out += quote_found(items[i]);
  }
  return out;
}

bool owns(std::string_view prefix, std::string_view path) {
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

// The node's own mark, or `fallback` where yaml-cpp has none worth showing: a null value's
// mark points at whatever token follows it, often on the next line.
YAML::Mark mark_or(const YAML::Node& node, const YAML::Mark& fallback) {
  if (node.IsNull() || node.Mark().is_null()) return fallback;
  return node.Mark();
}

}  // namespace

std::string detail::join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  std::string out(parent);
  out += '.';
  out += key;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Origin

Location Origin::locate(std::string_view key_path, const YAML::Mark& mark) const {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    if (owns(it->path, key_path)) return Location{"--set " + it->text, 0, 0};
  }
  if (mark.is_null()) return Location{file, 0, 0};
  return Location{file, mark.line + 1, mark.column + 1};
}

std::string describe_found(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return quote_found(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

// ---------------------------------------------------------------------------------------------
// ValueReader

ValueReader::ValueReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark)
    : origin_(std::move(origin)), node_(std::move(node)), path_(std::move(path)), mark_(mark) {}

Location ValueReader::location() const { return origin_->locate(path_, mark_); }

void ValueReader::fail(std::string expected, std::string hint) const {
  throw ScenarioError(location(), path_, std::move(expected), describe_found(node_), std::move(hint));
}

bool ValueReader::as_bool(std::string_view what) const {
  const std::string expected = what.empty() ? "a boolean (true or false)" : std::string(what);
  if (!node_.IsScalar()) fail(expected);
  const std::string& s = node_.Scalar();
  const bool is_true = s == "true" || s == "True" || s == "TRUE";
  const bool is_false = s == "false" || s == "False" || s == "FALSE";
  if (!is_true && !is_false) {
    std::string lower;
    for (const char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const bool yaml11 =
        lower == "yes" || lower == "no" || lower == "on" || lower == "off" || lower == "y" || lower == "n";
    fail(expected, yaml11 ? "YAML 1.1 booleans such as yes, no, on, off are not accepted: write true or false" : "");
  }
  if (!is_plain_or_tagged(node_, "bool")) fail(expected, kQuotedHint);
  return is_true;
}

std::int64_t ValueReader::as_integer(std::string_view what, std::int64_t min, std::int64_t max) const {
  const std::string expected = what.empty() ? "an integer" : std::string(what);
  if (!node_.IsScalar()) fail(expected);
  std::string_view s = node_.Scalar();
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const bool digits_only = !s.empty() && std::all_of(s.begin() + (s.front() == '-' ? 1 : 0), s.end(), [](char c) {
    return c >= '0' && c <= '9';
  }) && s != "-";
  if (!digits_only) fail(expected);
  if (!is_plain_or_tagged(node_, "int")) fail(expected, kQuotedHint);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool parsed = ec == std::errc() && end == s.data() + s.size();
  if (parsed && v >= min && v <= max) return v;
  // "-3" for a positive integer is wrong in sign, not in size: the range would be noise.
  if (parsed && v < min && min >= 0) fail(expected);
  fail(expected + " from " + std::to_string(min) + " to " + std::to_string(max));
}

double ValueReader::as_double(std::string_view what) const {
  const std::string expected = what.empty() ? "a number" : std::string(what);
  if (!node_.IsScalar()) fail(expected);
  double v = 0;
  try {
    v = parse_number(node_.Scalar(), Sign::kAny);
  } catch (const UnitError& e) {
    fail(expected, e.hint());
  }
  if (!is_plain_or_tagged(node_, "float")) fail(expected, kQuotedHint);
  return v;
}

std::string ValueReader::as_string(std::string_view what) const {
  if (!node_.IsScalar()) fail(what.empty() ? "a string" : std::string(what));
  return node_.Scalar();
}

const std::string& ValueReader::unit_text(Quantity quantity, Sign sign) const {
  if (!node_.IsScalar()) fail(expected_quantity(quantity, sign));
  // A count has no unit, so it is a number like any other: quoted, it is a string. (A size or a
  // rate may be quoted: "100 Gb/s".)
  if (quantity == Quantity::kCount && !is_plain_or_tagged(node_, "int") && !is_plain_or_tagged(node_, "float")) {
    fail(expected_quantity(quantity, sign), kQuotedHint);
  }
  return node_.Scalar();
}

void ValueReader::rethrow(const UnitError& e) const {
  throw ScenarioError(location(), path_, e.expected(), quote_found(e.found()), e.hint());
}

double ValueReader::bandwidth(Sign sign) const { return quantity(Quantity::kBandwidth, sign, &parse_bytes_per_s); }

std::int64_t ValueReader::bytes(Sign sign) const { return quantity(Quantity::kBytes, sign, &parse_bytes); }

std::int64_t ValueReader::count(Sign sign) const { return quantity(Quantity::kCount, sign, &parse_count); }

sim::SimTime ValueReader::duration(Sign sign) const { return quantity(Quantity::kDuration, sign, &parse_duration); }

double ValueReader::flops(Sign sign) const { return quantity(Quantity::kFlopRate, sign, &parse_flops); }

double ValueReader::watts(Sign sign) const { return quantity(Quantity::kPower, sign, &parse_watts); }

double ValueReader::usd(Sign sign) const { return quantity(Quantity::kUsd, sign, &parse_usd); }

double ValueReader::usd_per_hour(Sign sign) const { return quantity(Quantity::kUsdPerHour, sign, &parse_usd_per_hour); }

int ValueReader::positive_int() const { return static_cast<int>(as_integer("a positive integer", 1, INT_MAX)); }

int ValueReader::non_negative_int() const { return static_cast<int>(as_integer("a non-negative integer", 0, INT_MAX)); }

double ValueReader::fraction() const {
  const char* expected = "a fraction from 0 to 1, such as 0.4 or 40%";
  if (!node_.IsScalar()) fail(expected);
  std::string_view s = node_.Scalar();
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.remove_suffix(1);
  double v = 0;
  try {
    v = parse_number(s, Sign::kAny) / (percent ? 100.0 : 1.0);
  } catch (const UnitError&) {
    fail(expected);
  }
  if (!(v >= 0.0 && v <= 1.0)) fail(expected);
  return v;
}

std::string ValueReader::one_of(std::initializer_list<std::string_view> choices) const {
  return one_of(std::vector<std::string_view>(choices));
}

std::string ValueReader::one_of(const std::vector<std::string_view>& choices) const {
  std::vector<std::string> names(choices.begin(), choices.end());
  const std::string expected = "one of " + quoted_list(names);
  if (!node_.IsScalar()) fail(expected);
  const std::string& s = node_.Scalar();
  if (std::find(names.begin(), names.end(), s) == names.end()) fail(expected, did_you_mean(s, names));
  return s;
}

MapReader ValueReader::map() const { return MapReader(origin_, node_, path_, mark_); }

ListReader ValueReader::list() const { return ListReader(origin_, node_, path_, mark_); }

// ---------------------------------------------------------------------------------------------
// ListReader

ListReader::ListReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark)
    : origin_(std::move(origin)), path_(std::move(path)), mark_(mark) {
  if (!node.IsDefined()) return;  // an absent optional list
  if (!node.IsSequence()) {
    throw ScenarioError(location(), path_, "a sequence", describe_found(node),
                        node.IsScalar() ? "write a list as [a, b] or as lines starting with \"- \"" : "");
  }
  for (const auto& item : node) items_.push_back(item);
}

Location ListReader::location() const { return origin_->locate(path_, mark_); }

ValueReader ListReader::at(std::size_t index) const {
  const YAML::Node& item = items_.at(index);
  return ValueReader(origin_, item, path_ + "[" + std::to_string(index) + "]", mark_or(item, mark_));
}

void ListReader::fail(std::string expected, std::string hint) const {
  throw ScenarioError(location(), path_, std::move(expected),
                      "a sequence of " + std::to_string(items_.size()) + (items_.size() == 1 ? " item" : " items"),
                      std::move(hint));
}

// ---------------------------------------------------------------------------------------------
// MapReader

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(e.key);
  return out;
}

MapReader::MapReader(std::shared_ptr<const Origin> origin, YAML::Node node, std::string path, YAML::Mark mark,
                     bool null_is_empty)
    : origin_(std::move(origin)), path_(std::move(path)), mark_(mark) {
  if (!node.IsDefined() || (null_is_empty && node.IsNull())) return;  // all defaults
  if (!node.IsMap()) {
    throw ScenarioError(location(), path_, "a mapping of keys to values", describe_found(node),
                        node.IsScalar() ? "write a mapping as \"key: value\" lines indented below its key" : "");
  }
  for (const auto& pair : node) {
    // Copies: a yaml-cpp iterator's pair lives only as long as the iteration step.
    const YAML::Node key = pair.first;
    const YAML::Mark key_mark = key.Mark().is_null() ? mark_ : key.Mark();
    if (!key.IsScalar()) {
      throw ScenarioError(origin_->locate(path_, key_mark), path_, "a key name", describe_found(key));
    }
    if (const auto seen = index_.find(key.Scalar()); seen != index_.end()) {
      const Entry& e = entries_[seen->second];
      const std::string path_of_key = child_path(e.key);
      const Location first = origin_->locate(path_of_key, e.key_mark);
      throw ScenarioError(origin_->locate(path_of_key, key_mark), path_of_key, "each key at most once",
                          quote_found(e.key) + " a second time", "the first is at " + format_position(first));
    }
    index_.emplace(key.Scalar(), entries_.size());
    entries_.push_back(Entry{key.Scalar(), pair.second, key_mark, false});
  }
}

Location MapReader::location() const { return origin_->locate(path_, mark_); }

std::string MapReader::child_path(std::string_view key) const { return detail::join_path(path_, key); }

void MapReader::note(std::string_view key) {
  if (std::find(declared_.begin(), declared_.end(), key) == declared_.end()) declared_.emplace_back(key);
}

MapReader::Entry* MapReader::entry(std::string_view key) {
  const auto it = index_.find(std::string(key));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void MapReader::declare(std::initializer_list<std::string_view> keys) {
  for (const std::string_view k : keys) note(k);
}

bool MapReader::has(std::string_view key) {
  note(key);
  return entry(key) != nullptr;
}

std::optional<ValueReader> MapReader::find(std::string_view key) {
  note(key);
  Entry* e = entry(key);
  if (e == nullptr) return std::nullopt;
  e->read = true;
  return ValueReader(origin_, e->value, child_path(key), mark_or(e->value, e->key_mark));
}

void MapReader::missing(std::string_view key, std::string_view what) const {
  std::string hint = path_.empty() ? "add \"" + std::string(key) + ":\" at the top level"
                                   : "add \"" + std::string(key) + ":\" under " + path_;
  // An unknown key that is nearly the missing one is probably its misspelling. Only a hint:
  // the schema may read that key later under its own name.
  const std::vector<std::string> wanted{std::string(key)};
  for (const Entry& e : entries_) {
    const bool declared = std::find(declared_.begin(), declared_.end(), e.key) != declared_.end();
    if (e.read || declared || did_you_mean(e.key, wanted).empty()) continue;
    hint += " (is " + quote_found(e.key) + " at " + format_position(origin_->locate(child_path(e.key), e.key_mark)) +
            " a misspelling of it?)";
    break;
  }
  throw ScenarioError(location(), child_path(key), std::string(what), "no value (the key is missing)", std::move(hint));
}

void MapReader::reject_unknown(const Entry& e, bool list_keys) const {
  const std::string path = child_path(e.key);
  std::string expected = path_.empty() ? "a top-level key" : "a key of " + path_;
  if (declared_.empty()) {
    expected = path_.empty() ? "no keys at the top level" : "no keys under " + path_;
  } else if (list_keys) {
    expected += " (";
    for (std::size_t i = 0; i < declared_.size() && i < kMaxKeysListed; ++i) {
      if (i > 0) expected += ", ";
      expected += declared_[i];
    }
    if (declared_.size() > kMaxKeysListed) expected += ", ...";
    expected += ")";
  }
  std::string hint = did_you_mean(e.key, declared_);
  if (hint.empty() && e.key == "<<") hint = "YAML merge keys (<<) are not supported: write the keys out";
  throw ScenarioError(origin_->locate(path, e.key_mark), path, std::move(expected), quote_found(e.key),
                      std::move(hint));
}

ValueReader MapReader::value(std::string_view key, std::string_view what) {
  auto v = find(key);
  if (!v) missing(key, what);
  return *v;
}

template <class T>
T MapReader::quantity_at(std::string_view key, Quantity quantity, Sign sign, T (ValueReader::*read)(Sign) const) {
  return (value(key, expected_quantity(quantity, sign)).*read)(sign);
}
template <class T>
T MapReader::quantity_or(std::string_view key, T fallback, Sign sign, T (ValueReader::*read)(Sign) const) {
  auto v = find(key);
  return v ? ((*v).*read)(sign) : fallback;
}

double MapReader::bandwidth(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kBandwidth, sign, &ValueReader::bandwidth);
}
double MapReader::bandwidth(std::string_view key, double default_bytes_per_s, Sign sign) {
  return quantity_or(key, default_bytes_per_s, sign, &ValueReader::bandwidth);
}
std::int64_t MapReader::bytes(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kBytes, sign, &ValueReader::bytes);
}
std::int64_t MapReader::bytes(std::string_view key, std::int64_t default_bytes, Sign sign) {
  return quantity_or(key, default_bytes, sign, &ValueReader::bytes);
}
std::int64_t MapReader::count(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kCount, sign, &ValueReader::count);
}
std::int64_t MapReader::count(std::string_view key, std::int64_t default_count, Sign sign) {
  return quantity_or(key, default_count, sign, &ValueReader::count);
}
sim::SimTime MapReader::duration(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kDuration, sign, &ValueReader::duration);
}
sim::SimTime MapReader::duration(std::string_view key, sim::SimTime default_duration, Sign sign) {
  return quantity_or(key, default_duration, sign, &ValueReader::duration);
}
double MapReader::flops(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kFlopRate, sign, &ValueReader::flops);
}
double MapReader::flops(std::string_view key, double default_flops, Sign sign) {
  return quantity_or(key, default_flops, sign, &ValueReader::flops);
}
double MapReader::watts(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kPower, sign, &ValueReader::watts);
}
double MapReader::watts(std::string_view key, double default_watts, Sign sign) {
  return quantity_or(key, default_watts, sign, &ValueReader::watts);
}
double MapReader::usd(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kUsd, sign, &ValueReader::usd);
}
double MapReader::usd(std::string_view key, double default_usd, Sign sign) {
  return quantity_or(key, default_usd, sign, &ValueReader::usd);
}
double MapReader::usd_per_hour(std::string_view key, Sign sign) {
  return quantity_at(key, Quantity::kUsdPerHour, sign, &ValueReader::usd_per_hour);
}
double MapReader::usd_per_hour(std::string_view key, double default_usd_per_hour, Sign sign) {
  return quantity_or(key, default_usd_per_hour, sign, &ValueReader::usd_per_hour);
}
int MapReader::positive_int(std::string_view key) { return value(key, "a positive integer").positive_int(); }
int MapReader::positive_int(std::string_view key, int default_value) {
  auto v = find(key);
  return v ? v->positive_int() : default_value;
}
int MapReader::non_negative_int(std::string_view key) {
  return value(key, "a non-negative integer").non_negative_int();
}
int MapReader::non_negative_int(std::string_view key, int default_value) {
  auto v = find(key);
  return v ? v->non_negative_int() : default_value;
}
double MapReader::fraction(std::string_view key) {
  return value(key, "a fraction from 0 to 1, such as 0.4 or 40%").fraction();
}
double MapReader::fraction(std::string_view key, double default_fraction) {
  auto v = find(key);
  return v ? v->fraction() : default_fraction;
}
std::string MapReader::one_of(std::string_view key, std::initializer_list<std::string_view> choices) {
  auto v = find(key);
  if (!v) missing(key, "one of " + quoted_list(std::vector<std::string>(choices.begin(), choices.end())));
  return v->one_of(choices);
}
std::string MapReader::one_of(std::string_view key, std::initializer_list<std::string_view> choices,
                              std::string_view default_choice) {
  auto v = find(key);
  return v ? v->one_of(choices) : std::string(default_choice);
}

MapReader MapReader::child(std::string_view key) { return value(key, "a mapping of keys to values").map(); }

MapReader MapReader::optional_child(std::string_view key) {
  auto v = find(key);
  if (!v) return MapReader(origin_, YAML::Node(YAML::NodeType::Undefined), child_path(key), mark_);
  // "fabric:" with every key commented out reads as all defaults.
  return MapReader(origin_, v->node(), v->path(), v->mark(), true);
}

ListReader MapReader::list(std::string_view key) { return value(key, "a sequence").list(); }

ListReader MapReader::optional_list(std::string_view key) {
  auto v = find(key);
  if (!v) return ListReader(origin_, YAML::Node(YAML::NodeType::Undefined), child_path(key), mark_);
  return v->list();
}

void MapReader::forbid(std::string_view key, std::string_view why) {
  note(key);
  Entry* e = entry(key);
  if (e == nullptr) return;
  e->read = true;
  const std::string path = child_path(key);
  throw ScenarioError(origin_->locate(path, e->key_mark), path, "no " + quote_found(key) + " key here",
                      quote_found(key), std::string(why));
}

void MapReader::finish() {
  for (const Entry& e : entries_) {
    if (e.read) continue;
    if (std::find(declared_.begin(), declared_.end(), e.key) == declared_.end()) reject_unknown(e, true);
    const std::string path = child_path(e.key);
    throw ScenarioError(origin_->locate(path, e.key_mark), path, "no " + quote_found(e.key) + " key here",
                        quote_found(e.key),
                        "it does not apply with the other settings of " + (path_.empty() ? "the file" : path_));
  }
}

void MapReader::fail(std::string_view key, std::string expected, std::string hint) {
  auto v = find(key);
  if (v) v->fail(std::move(expected), std::move(hint));
  throw ScenarioError(location(), child_path(key), std::move(expected), "no value (the key is missing)",
                      std::move(hint));
}

}  // namespace fathom::scenario
