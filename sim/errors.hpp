// Exceptions the engine throws. A model error is a bug in a model, never in the input.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace fathom::sim
