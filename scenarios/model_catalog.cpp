#include "scenarios/model_catalog.hpp"

#include <string>
#include <utility>

#include "models/workloads/training/model_parameters.hpp"
#include "scenarios/accelerator_catalog.hpp"
#include "scenarios/declared_reader.hpp"
#include "scenarios/user_catalogs.hpp"

namespace fathom::scenario {

namespace {

std::vector<train::TransformerSpec> parse_catalog() {
  const Document doc = Document::parse(model_catalog_text(), std::string(kModelCatalogFile));
  std::vector<train::TransformerSpec> models;
  read_catalog_entries(
      doc, [&](MapReader& fields, const std::string& name) { models.push_back(read_model_entry(fields, name)); });
  return models;
}

// The value of the key `field` names in `spec`, for a violation's message.
int field_value(const train::TransformerSpec& spec, std::string_view field) {
  if (field == "layers") return spec.layers;
  if (field == "hidden") return spec.hidden;
  if (field == "ffn_hidden") return spec.ffn_hidden;
  if (field == "heads") return spec.heads;
  if (field == "kv_heads") return spec.kv_heads;
  if (field == "vocab") return spec.vocab;
  if (field == "max_sequence") return spec.max_sequence;
  if (field == "experts") return spec.experts;
  if (field == "moe_every") return spec.moe_every;
  if (field == "dense_ffn_hidden") return spec.dense_ffn_hidden;
  if (field == "shared_experts") return spec.shared_experts;
  return spec.top_k;
}

// Rejects `spec` for `violation`: at the key's value where `map` writes the key, else at
// `map`, saying that the value came from the base model.
[[noreturn]] void reject(MapReader& map, const train::TransformerSpec& spec, const train::SpecViolation& violation) {
  if (map.has(violation.field)) map.fail(violation.field, violation.expected);
  const std::string path = map.path().empty() ? violation.field : map.path() + "." + violation.field;
  std::string hint = spec.name.empty() ? std::string("the value is the default")
                                       : "the value comes from the base model " + quote_found(spec.name);
  hint += "; set " + violation.field + " here too";
  throw ScenarioError(map.location(), path, violation.expected,
                      quote_found(std::to_string(field_value(spec, violation.field))), std::move(hint));
}

}  // namespace

const std::vector<train::TransformerSpec>& catalog_models() {
  static const std::vector<train::TransformerSpec> models = parse_catalog();
  return models;
}

const train::TransformerSpec* find_catalog_model(std::string_view name) {
  return find_in_catalogs(catalog_models(), &UserCatalog::models, name);
}

std::vector<std::string> catalog_model_names() { return names_in_catalogs(catalog_models(), &UserCatalog::models); }

train::TransformerSpec read_model_entry(MapReader& fields, const std::string& name) {
  constexpr std::string_view kSource = "a string naming the paper or model card the shapes come from";
  train::TransformerSpec base;
  std::string source;
  if (auto b = fields.find("base")) {
    base = catalog_model(*b);
    source = fields.optional<std::string>("source", base.source);
  } else {
    source = fields.required<std::string>("source", kSource);
  }
  train::TransformerSpec spec = read_model_fields(fields, std::move(base));
  spec.name = name;
  spec.source = source;
  return spec;
}

const train::TransformerSpec& catalog_model(const ValueReader& value) {
  return named_in_catalogs(catalog_models(), &UserCatalog::models, value, "a model of the model zoo");
}

train::TransformerSpec read_model_fields(MapReader& map, train::TransformerSpec base) {
  // A blank base requires every shape; over a filled one every key is optional.
  const bool blank = base.layers == 0;
  const bool kv_heads_given = map.has("kv_heads");
  train::TransformerSpec s = std::move(base);
  read_declared(map, train::model_parameters(), s, {}, blank);
  if (blank && !kv_heads_given) s.kv_heads = s.heads;  // no GQA unless the entry says so

  if (auto violation = train::first_violation(s)) reject(map, s, *violation);
  return s;
}

}  // namespace fathom::scenario
