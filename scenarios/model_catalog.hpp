// The model zoo: named decoder-only transformers (gpt3-175b, llama3-70b, mixtral-8x7b, ...)
// that a scenario's `workload.model` names instead of spelling every shape out. The zoo is
// scenarios/models/models.yaml, compiled into the binary at build time, so that fathom reads
// it from any directory; it is parsed as strictly as a scenario (unknown keys are errors), and
// every entry passes train::check. docs/models.md lists the entries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/workloads/training/transformer.hpp"
#include "scenarios/yaml_reader.hpp"

namespace fathom::scenario {

// The name the catalog's locations carry in errors.
inline constexpr std::string_view kModelCatalogFile = "<built-in>/scenarios/models/models.yaml";

// scenarios/models/models.yaml as compiled in.
std::string_view model_catalog_text();

// Every entry of the zoo, in file order, with `name` and `source` filled; parsed once. A
// malformed catalog throws ScenarioError located in kModelCatalogFile.
const std::vector<train::TransformerSpec>& catalog_models();

// The entry named `name`, or nullptr.
const train::TransformerSpec* find_catalog_model(std::string_view name);

// The zoo's names, in file order.
std::vector<std::string> catalog_model_names();

// The entry `value` names; an unknown name is rejected at `value` with the zoo's names and a
// "did you mean".
const train::TransformerSpec& catalog_model(const ValueReader& value);

// Reads the model keys present in `map` over `base`; keys absent keep base's value, and
// base's name and source are kept. A blank base (layers == 0, as TransformerSpec{}) makes a
// model from scratch: then every key is required except kv_heads (default: heads, no
// grouped-query attention), experts and top_k (default 1: dense), moe_every (1),
// dense_ffn_hidden and shared_experts (0). Counts are plain integers; mlp is gelu or swiglu, position learned or
// rotary.
//
// The result is validated with train::check: a broken relation is a ScenarioError naming the
// key ("model.heads: expected a divisor of hidden (8192), found \"60\""), located at the key's
// value where `map` writes it and at `map` where the value comes from `base`. Does not call
// finish(): the caller reads its own keys (`base`, `source`) first.
train::TransformerSpec read_model_fields(MapReader& map, train::TransformerSpec base);

// One model entry named `name`: in full (`source` and every shape key), or `base: NAME` (any
// catalog model) and only the keys it changes. Does not call fields.finish().
train::TransformerSpec read_model_entry(MapReader& fields, const std::string& name);

}  // namespace fathom::scenario
