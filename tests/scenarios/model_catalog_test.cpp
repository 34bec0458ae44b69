// The built-in model zoo: every entry parses strictly and passes check(); its parameter counts
// match the published figures and Megatron's Table 1; a scenario names an entry, overrides one
// with `base:` or defines a model, and every mistake is rejected at its place with a hint.
#include "scenarios/model_catalog.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using fathom::scenario::catalog_model;
using fathom::scenario::catalog_model_names;
using fathom::scenario::catalog_models;
using fathom::scenario::Document;
using fathom::scenario::find_catalog_model;
using fathom::scenario::MapReader;
using fathom::scenario::read_model_fields;
using fathom::scenario::ScenarioError;
using fathom::train::active_parameter_count;
using fathom::train::parameter_count;
using fathom::train::TransformerSpec;

namespace {

const TransformerSpec& zoo(const std::string& name) {
  const TransformerSpec* m = find_catalog_model(name);
  if (m == nullptr) throw std::logic_error("no model " + name + " in the zoo");
  return *m;
}

double relative_error(double value, double reference) { return std::fabs(value - reference) / reference; }

// Reads `workload.model: <model>` (YAML flow text) as the scenario loader does: a name, or a
// mapping with an optional `base:` over which the model keys apply.
TransformerSpec read_model(const std::string& model) {
  const Document doc = Document::parse("workload:\n  model: " + model + "\n", "pilot.yaml");
  MapReader root = doc.root();
  MapReader workload = root.child("workload");
  const auto value = workload.value("model", "a model of the zoo, or a mapping of model keys");
  TransformerSpec spec;
  if (value.is_map()) {
    MapReader map = value.map();
    TransformerSpec base;
    if (auto b = map.find("base")) base = catalog_model(*b);
    spec = read_model_fields(map, base);
    map.finish();
  } else {
    spec = catalog_model(value);
  }
  workload.finish();
  root.finish();
  return spec;
}

ScenarioError model_error(const std::string& model) {
  try {
    read_model(model);
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("the model was read although it is wrong: " << model);
  throw std::logic_error("unreachable");
}

void check_same(const TransformerSpec& a, const TransformerSpec& b) {
  CHECK(a.name == b.name);
  CHECK(a.source == b.source);
  CHECK(a.layers == b.layers);
  CHECK(a.hidden == b.hidden);
  CHECK(a.ffn_hidden == b.ffn_hidden);
  CHECK(a.heads == b.heads);
  CHECK(a.kv_heads == b.kv_heads);
  CHECK(a.vocab == b.vocab);
  CHECK(a.max_sequence == b.max_sequence);
  CHECK(a.mlp == b.mlp);
  CHECK(a.position == b.position);
  CHECK(a.tied_embeddings == b.tied_embeddings);
  CHECK(a.experts == b.experts);
  CHECK(a.top_k == b.top_k);
}

// data/validation/megatron-sc21-table1.csv, one map of column to text per row.
std::vector<std::map<std::string, std::string>> megatron_table() {
  std::ifstream in(std::string(FATHOM_SOURCE_DIR) + "/data/validation/megatron-sc21-table1.csv");
  REQUIRE(in);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

TEST_CASE("the zoo parses strictly, every entry passes check, and it is the file in the source tree") {
  const std::vector<std::string> expected{"gpt3-125m",
                                          "gpt3-350m",
                                          "gpt3-760m",
                                          "gpt3-1.3b",
                                          "gpt3-2.7b",
                                          "gpt3-6.7b",
                                          "gpt3-13b",
                                          "gpt3-175b",
                                          "megatron-gpt-1.7b",
                                          "megatron-gpt-3.6b",
                                          "megatron-gpt-7.5b",
                                          "megatron-gpt-18.4b",
                                          "megatron-gpt-39.1b",
                                          "megatron-gpt-76.1b",
                                          "megatron-gpt-145.6b",
                                          "megatron-gpt-310.1b",
                                          "megatron-gpt-529.6b",
                                          "megatron-gpt-1008b",
                                          "llama2-7b",
                                          "llama2-13b",
                                          "llama2-70b",
                                          "llama3-8b",
                                          "llama3-70b",
                                          "llama3-405b",
                                          "llama3.1-8b",
                                          "llama3.1-70b",
                                          "llama3.1-405b",
                                          "mixtral-8x7b",
                                          "mixtral-8x22b",
                                          "llama4-maverick"};
  REQUIRE(catalog_model_names() == expected);
  for (const auto& m : catalog_models()) {
    CAPTURE(m.name);
    CHECK_FALSE(m.source.empty());
    CHECK_NOTHROW(fathom::train::check(m));
    CHECK(active_parameter_count(m) <= parameter_count(m));
    // Looking an entry up by name, as a scenario does, gives the entry itself.
    check_same(read_model(m.name), m);
  }
  CHECK(find_catalog_model("gpt-4") == nullptr);

  std::ifstream in(std::string(FATHOM_SOURCE_DIR) + "/scenarios/models/models.yaml");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == fathom::scenario::model_catalog_text());
}

TEST_CASE("parameter counts match the published figures") {
  struct Published {
    const char* name;
    double total;
    double active;  // 0: dense
  };
  // Model cards and papers: Llama 2 (Touvron et al. 2023), Llama 3 (Meta's model cards and the
  // herd paper), Mixtral (Mistral AI: 46.7B/12.9B and 141B/39B), GPT-3 (Brown et al. 2020), Llama 4
  // Maverick (Meta's model card: 400B total, 17B active).
  const Published published[] = {
      {"llama2-7b", 6.74e9, 0},         {"llama2-13b", 13.0e9, 0},      {"llama2-70b", 69.0e9, 0},
      {"llama3-8b", 8.03e9, 0},         {"llama3-70b", 70.6e9, 0},      {"llama3-405b", 405.9e9, 0},
      {"llama3.1-8b", 8.03e9, 0},       {"llama3.1-70b", 70.6e9, 0},    {"llama3.1-405b", 405.9e9, 0},
      {"mixtral-8x7b", 46.7e9, 12.9e9}, {"mixtral-8x22b", 141e9, 39e9}, {"gpt3-175b", 175e9, 0},
      {"llama4-maverick", 400e9, 17e9}};
  for (const auto& p : published) {
    CAPTURE(p.name);
    const TransformerSpec& m = zoo(p.name);
    CAPTURE(parameter_count(m));
    CHECK(relative_error(parameter_count(m), p.total) <= 0.015);
    const double active = p.active > 0 ? p.active : p.total;
    CAPTURE(active_parameter_count(m));
    CHECK(relative_error(active_parameter_count(m), active) <= 0.015);
  }

  // The smaller GPT-3 models are named by their size rounded to two figures; each count lies
  // within 2% of its name.
  const std::pair<const char*, double> gpt3[] = {{"gpt3-125m", 125e6}, {"gpt3-350m", 350e6}, {"gpt3-760m", 760e6},
                                                 {"gpt3-1.3b", 1.3e9}, {"gpt3-2.7b", 2.7e9}, {"gpt3-6.7b", 6.7e9},
                                                 {"gpt3-13b", 13e9}};
  for (const auto& [name, size] : gpt3) {
    CAPTURE(name);
    CAPTURE(parameter_count(zoo(name)));
    CHECK(relative_error(parameter_count(zoo(name)), size) <= 0.02);
  }
}

TEST_CASE("the Megatron GPT entries are Table 1 of Narayanan et al. 2021, to its rounding") {
  const auto rows = megatron_table();
  REQUIRE(rows.size() == 10);
  for (const auto& row : rows) {
    std::string size = row.at("params_billion");
    if (size.size() > 2 && size.compare(size.size() - 2, 2, ".0") == 0) size.resize(size.size() - 2);
    const std::string name = "megatron-gpt-" + size + "b";
    CAPTURE(name);
    const TransformerSpec* m = find_catalog_model(name);
    REQUIRE(m != nullptr);
    CHECK(m->layers == std::stoi(row.at("layers")));
    CHECK(m->hidden == std::stoi(row.at("hidden_size")));
    CHECK(m->heads == std::stoi(row.at("attention_heads")));
    CHECK(m->kv_heads == m->heads);
    CHECK(m->ffn_hidden == 4 * m->hidden);
    CHECK(m->vocab == 51200);
    CHECK(m->max_sequence == 2048);
    CHECK(m->mlp == fathom::train::MlpKind::kGelu);
    CHECK(m->position == fathom::train::PositionKind::kLearned);
    CHECK(m->tied_embeddings);

    const double count = parameter_count(*m);
    const double published = std::stod(row.at("params_billion")) * 1e9;
    CAPTURE(count);
    // The paper's own count, P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12lh)), validates the
    // convention: they differ only by the final LayerNorm (2h).
    const double l = m->layers;
    const double h = m->hidden;
    const double formula = 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (51200.0 + 2048.0) / (12.0 * l * h));
    CHECK(relative_error(count, formula) <= 0.005);
    CHECK(count - formula == doctest::Approx(2.0 * h));
    // Table 1 prints the count in billions to one decimal, so the count rounds to it exactly.
    CHECK(std::lround(count / 1e8) == std::lround(published / 1e8));
    // Within 2% of the printed figure, or within its rounding (half of 0.1 billion): the
    // 1.7B model counts 1.652e9 by the paper's own formula, 2.8% under its rounded name.
    CHECK((relative_error(count, published) <= 0.02 || std::fabs(count - published) <= 0.05e9));
  }
}

TEST_CASE("Llama 3.1 is Llama 3 with the longer context") {
  for (const char* size : {"8b", "70b", "405b"}) {
    CAPTURE(size);
    TransformerSpec a = zoo(std::string("llama3-") + size);
    const TransformerSpec& b = zoo(std::string("llama3.1-") + size);
    CHECK(a.max_sequence == 8192);
    CHECK(b.max_sequence == 131072);
    a.name = b.name;
    a.source = b.source;
    a.max_sequence = b.max_sequence;
    check_same(a, b);
  }
}

TEST_CASE("base: takes a zoo entry and overrides only the keys given") {
  const TransformerSpec& base = zoo("llama3-70b");
  TransformerSpec expected = base;
  expected.layers = 40;
  check_same(read_model("{base: llama3-70b, layers: 40}"), expected);

  expected = zoo("mixtral-8x7b");
  expected.top_k = 1;
  expected.mlp = fathom::train::MlpKind::kGelu;
  expected.tied_embeddings = true;
  check_same(read_model("{base: mixtral-8x7b, top_k: 1, mlp: gelu, tied_embeddings: true}"), expected);

  // A base with no keys is the entry itself.
  check_same(read_model("{base: gpt3-175b}"), zoo("gpt3-175b"));
}

TEST_CASE("a model without base: is defined from scratch") {
  const TransformerSpec m = read_model(
      "{layers: 4, hidden: 256, ffn_hidden: 1024, heads: 8, vocab: 1000, max_sequence: 512, mlp: gelu, "
      "position: learned, tied_embeddings: true}");
  CHECK(m.name.empty());
  CHECK(m.layers == 4);
  CHECK(m.hidden == 256);
  CHECK(m.ffn_hidden == 1024);
  CHECK(m.heads == 8);
  CHECK(m.kv_heads == 8);  // no grouped-query attention unless asked
  CHECK(m.vocab == 1000);
  CHECK(m.max_sequence == 512);
  CHECK(m.experts == 1);
  CHECK(m.top_k == 1);

  const TransformerSpec moe = read_model(
      "{layers: 4, hidden: 256, ffn_hidden: 512, heads: 8, kv_heads: 2, vocab: 1000, max_sequence: 512, "
      "mlp: swiglu, position: rotary, tied_embeddings: false, experts: 16, top_k: 4}");
  CHECK(moe.kv_heads == 2);
  CHECK(moe.mlp == fathom::train::MlpKind::kSwiGlu);
  CHECK(moe.position == fathom::train::PositionKind::kRotary);
  CHECK(moe.experts == 16);
  CHECK(moe.top_k == 4);

  // Every shape is required: a missing one is named, at the model.
  const char* complete[] = {"layers: 4", "hidden: 256",       "ffn_hidden: 1024",
                            "heads: 8",  "vocab: 1000",       "max_sequence: 512",
                            "mlp: gelu", "position: learned", "tied_embeddings: true"};
  for (std::size_t skip = 0; skip < std::size(complete); ++skip) {
    std::string model = "{";
    for (std::size_t i = 0; i < std::size(complete); ++i) {
      if (i == skip) continue;
      model += std::string(model.size() > 1 ? ", " : "") + complete[i];
    }
    model += "}";
    const std::string key = std::string(complete[skip]).substr(0, std::string(complete[skip]).find(':'));
    CAPTURE(model);
    const ScenarioError e = model_error(model);
    CHECK(e.key_path() == "workload.model." + key);
    CHECK(e.found() == "no value (the key is missing)");
    CHECK(e.file() == "pilot.yaml");
    CHECK(e.line() == 2);
  }
}

TEST_CASE("an unknown model name is rejected at its key with the names and a hint") {
  const ScenarioError e = model_error("llama3-70");
  CHECK(e.key_path() == "workload.model");
  CHECK(e.file() == "pilot.yaml");
  CHECK(e.line() == 2);
  CHECK(e.column() == 10);
  CHECK(e.found() == "\"llama3-70\"");
  CHECK(e.expected().find("gpt3-125m, gpt3-350m") != std::string::npos);
  CHECK(e.expected().find("mixtral-8x22b") != std::string::npos);
  CHECK(e.hint() == "did you mean \"llama3-70b\"?");

  const ScenarioError b = model_error("{base: mixtral-8x7, layers: 8}");
  CHECK(b.key_path() == "workload.model.base");
  CHECK(b.hint() == "did you mean \"mixtral-8x7b\"?");

  CHECK(model_error("[llama3-70b]").key_path() == "workload.model");
}

TEST_CASE("an unknown key is rejected at its place with a hint") {
  const ScenarioError e = model_error("{base: llama3-70b, layer: 40}");
  CHECK(e.key_path() == "workload.model.layer");
  CHECK(e.line() == 2);
  CHECK(e.hint() == "did you mean \"layers\"?");

  // `source` belongs to the zoo's file, not to a scenario.
  CHECK(model_error("{base: llama3-70b, source: x}").key_path() == "workload.model.source");

  const ScenarioError m = model_error("{base: llama3-70b, mlp: swiglo}");
  CHECK(m.key_path() == "workload.model.mlp");
  CHECK(m.hint() == "did you mean \"swiglu\"?");

  const ScenarioError p = model_error("{base: llama3-70b, position: rope}");
  CHECK(p.key_path() == "workload.model.position");

  // Counts are plain positive integers.
  CHECK(model_error("{base: llama3-70b, layers: 0}").key_path() == "workload.model.layers");
  CHECK(model_error("{base: llama3-70b, layers: '40'}").key_path() == "workload.model.layers");
  CHECK(model_error("{base: llama3-70b, hidden: 8k}").key_path() == "workload.model.hidden");

  // The zoo's own file is read as strictly.
  const auto doc = Document::parse("x:\n  source: s\n  layer: 2\n", "zoo.yaml");
  MapReader root = doc.root();
  MapReader x = root.child("x");
  CHECK_FALSE(x.required<std::string>("source").empty());
  CHECK_THROWS_AS(read_model_fields(x, TransformerSpec{}), ScenarioError);  // layers is missing
}

TEST_CASE("a broken relation between keys is rejected naming the key") {
  // The key written breaks it: located at its value.
  const ScenarioError h = model_error("{base: llama3-70b, heads: 60}");
  CHECK(h.key_path() == "workload.model.heads");
  CHECK(h.expected() == "a divisor of hidden (8192)");
  CHECK(h.found() == "\"60\"");
  CHECK(h.line() == 2);
  CHECK(h.column() == 36);
  CHECK(std::string(h.what()).find("workload.model.heads: expected a divisor of hidden (8192), found \"60\"") !=
        std::string::npos);

  const ScenarioError kv = model_error("{base: llama2-70b, kv_heads: 5}");
  CHECK(kv.key_path() == "workload.model.kv_heads");
  CHECK(kv.expected() == "a divisor of heads (64)");

  const ScenarioError k = model_error("{base: mixtral-8x7b, top_k: 9}");
  CHECK(k.key_path() == "workload.model.top_k");
  CHECK(k.expected() == "at most experts (8)");

  // A key from the base breaks it after another key changed: named, located at the model,
  // with a hint saying where its value came from.
  const ScenarioError b = model_error("{base: llama3-70b, hidden: 8100}");
  CHECK(b.key_path() == "workload.model.heads");
  CHECK(b.expected() == "a divisor of hidden (8100)");
  CHECK(b.found() == "\"64\"");
  CHECK(b.line() == 2);
  CHECK(b.column() == 10);
  CHECK(b.hint().find("base model \"llama3-70b\"") != std::string::npos);

  const ScenarioError e = model_error("{base: mixtral-8x7b, experts: 1}");
  CHECK(e.key_path() == "workload.model.top_k");
  CHECK(e.expected() == "at most experts (1)");
  CHECK(e.found() == "\"2\"");

  // In a model from scratch too.
  const ScenarioError s = model_error(
      "{layers: 4, hidden: 256, ffn_hidden: 1024, heads: 6, vocab: 1000, max_sequence: 512, mlp: gelu, "
      "position: learned, tied_embeddings: true}");
  CHECK(s.key_path() == "workload.model.heads");
  CHECK(s.expected() == "a divisor of hidden (256)");
}
