// Exceptions the engine throws. A model error is a bug in a model, never in the input.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace fathom::sim {

// A model broke one of the engine's rules (an event below the lookahead, into the past,
// to an LP that does not exist). The message names the LPs, the times and the rule.
class ModelError : public std::logic_error {
 public:
  explicit ModelError(const std::string& what) : std::logic_error(what) {}
};

// The engine was asked for something it cannot do (bad run options).
class ConfigError : public std::invalid_argument {
 public:
  explicit ConfigError(const std::string& what) : std::invalid_argument(what) {}
};

// A rule a spec breaks (a count that does not divide, a value out of range), as a value: the
// spec's field, what the rule expects, what the spec has and how to fix it. Models and builders
// throw it (SpecError); the scenario loader maps the field to the key that set it and reports
// the file, line and column, with no text to parse.
struct SpecViolation {
  std::string field;      // the spec's own path: "parallel.tp", "fabric.leaves", "node.nvlink_bytes_per_s"
  std::string expected;   // "a divisor of the model's 64 attention heads"
  std::string found;      // "3"; empty when the rule names no single value
  std::string hint = {};  // how to fix it; may be empty

  // "<field>: expected <expected>[, found <found>][; <hint>]"
  std::string message() const {
    return field + ": expected " + expected + (found.empty() ? "" : ", found " + found) +
           (hint.empty() ? "" : "; " + hint);
  }
};

// Bad input, found by a model or builder: the spec breaks one of its rules.
class SpecError : public std::invalid_argument {
 public:
  explicit SpecError(SpecViolation v) : std::invalid_argument(v.message()), violation_(std::move(v)) {}
  const SpecViolation& violation() const { return violation_; }

 private:
  SpecViolation violation_;
};

}  // namespace fathom::sim
