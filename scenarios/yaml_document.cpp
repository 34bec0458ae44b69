// Document: a YAML file or text parsed strictly (one document, bounded depth, located syntax
// errors), and `--set` overrides applied to it before any reader sees it.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "scenarios/yaml_reader.hpp"
#include "sim/input/text_file.hpp"

namespace fathom::scenario {

namespace {

ScenarioError syntax_error(const std::string& file, const YAML::Exception& e) {
  Location where{file, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
  return ScenarioError(std::move(where), "", "valid YAML", "a syntax error (" + e.msg + ")");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Document

Document::Document(std::shared_ptr<Origin> origin, YAML::Node tree) : origin_(std::move(origin)), tree_(tree) {}

Document Document::load_file(const std::string& file) {
  std::string text;
  try {
    text = sim::read_text_file(file, sim::kMaxYamlBytes);
  } catch (const sim::InputFileError& e) {
    throw ScenarioError(Location{file, 0, 0}, "", e.expected(), e.found());
  }
  return parse(text, file);
}

namespace {

// Notes where each document starts, for counting documents without building them.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

Document Document::parse(std::string_view text, std::string file_name) {
  auto origin = std::make_shared<Origin>();
  origin->file = std::move(file_name);
  const std::string input(text);
  YAML::Node tree(YAML::NodeType::Null);
  try {
    // yaml-cpp 0.7 can start a "document" on a token it cannot parse (a stray ",") without
    // consuming it, so YAML::LoadAll loops forever, allocating (yaml-cpp issue #1040). Count
    // documents with a bounded loop instead: a document that starts where the previous one
    // did is that stall, and a syntax error at that place.
    std::istringstream stream(input);
    YAML::Parser parser(stream);
    DocumentStarts documents;
    while (documents.starts.size() < 3 && parser.HandleNextDocument(documents)) {
      const std::size_t n = documents.starts.size();
      if (n >= 2 && documents.starts[n - 1].pos == documents.starts[n - 2].pos) {
        const YAML::Mark at = documents.starts[n - 1];
        const auto pos = static_cast<std::size_t>(at.pos);
        throw ScenarioError(origin->locate("", at), "", "valid YAML",
                            "a syntax error (unexpected " +
                                (pos < input.size() ? quote_found(input.substr(pos, 1)) : std::string("text")) + ")");
      }
    }
    if (documents.starts.size() > 1) {
      throw ScenarioError(origin->locate("", documents.starts[1]), "", "one YAML document", "a second document",
                          "a scenario file holds one document: remove the \"---\" line");
    }
    if (!documents.starts.empty()) tree = YAML::Load(input);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this one is "bad file".
    throw ScenarioError(origin->locate("", e.mark), "", "valid YAML",
                        "nesting " + std::to_string(e.depth()) + " levels deep, more than the parser allows");
  } catch (const YAML::Exception& e) {
    throw syntax_error(origin->file, e);
  }
  return Document(std::move(origin), tree);
}

MapReader Document::root() const {
  YAML::Mark start = tree_.Mark();
  if (tree_.IsNull()) start = YAML::Mark::null_mark();
  return MapReader(origin_, tree_, "", start, true);
}

namespace {

// One step of an override's path: a key, or an index into a sequence.
struct Step {
  std::string key;
  std::size_t index = 0;
  bool is_index = false;
};

// "a.b[2].c" into steps; nullopt when it is not of that form.
std::optional<std::vector<Step>> split_override_path(std::string_view path) {
  std::vector<Step> steps;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    while (i < path.size() && path[i] != '.' && path[i] != '[' && path[i] != ']' &&
           static_cast<unsigned char>(path[i]) > ' ')
      ++i;
    if (i == start) return std::nullopt;
    steps.push_back(Step{std::string(path.substr(start, i - start)), 0, false});
    while (i < path.size() && path[i] == '[') {
      std::size_t j = i + 1;
      std::size_t index = 0;
      while (j < path.size() && path[j] >= '0' && path[j] <= '9' && j - i <= 9) index = index * 10 + (path[j++] - '0');
      if (j == i + 1 || j >= path.size() || path[j] != ']') return std::nullopt;
      steps.push_back(Step{"", index, true});
      i = j + 1;
    }
    if (i == path.size()) return steps;
    if (path[i] != '.') return std::nullopt;
    ++i;
  }
}

std::optional<YAML::Node> find_key(const YAML::Node& map, const std::string& key) {
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) return pair.second;
  }
  return std::nullopt;
}

}  // namespace

void Document::apply_override(std::string_view assignment) {
  const std::string text(assignment);
  const Location here{"--set " + text, 0, 0};
  const auto eq = assignment.find('=');
  const auto steps = split_override_path(assignment.substr(0, eq == std::string_view::npos ? 0 : eq));
  if (eq == std::string_view::npos || !steps) {
    throw ScenarioError(here, "", "an override of the form key.path=value, such as cluster.nodes=16",
                        quote_found(assignment));
  }
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(here, std::string(assignment.substr(0, eq)), "a YAML value after \"=\"",
                        "a syntax error (" + e.msg + ")");
  }

  if (tree_.IsNull()) tree_.reset(YAML::Node(YAML::NodeType::Map));
  // yaml-cpp nodes are handles: `reset` moves this one along the path, while `=` would
  // overwrite the node it points at.
  YAML::Node cur;
  cur.reset(tree_);
  std::string path;
  std::string owned;  // the first part of the path this override created, if any
  for (std::size_t s = 0; s < steps->size(); ++s) {
    const Step& step = (*steps)[s];
    const bool last = s + 1 == steps->size();
    const std::string parent_path = path;
    path = step.is_index ? path + "[" + std::to_string(step.index) + "]" : detail::join_path(path, step.key);
    auto crossing = [&](const char* expected_kind) -> ScenarioError {
      const std::string what = step.is_index ? "[" + std::to_string(step.index) + "]" : quote_found(step.key);
      const Location there = origin_->locate(parent_path, cur.Mark());
      std::string hint;
      if (!parent_path.empty()) hint = parent_path + " is set at " + format_position(there);
      return ScenarioError(here, parent_path.empty() ? "(top level)" : parent_path,
                           std::string(expected_kind) + " to hold " + what, describe_found(cur), std::move(hint));
    };

    if (step.is_index) {
      if (!cur.IsSequence()) throw crossing("a sequence");
      if (step.index >= cur.size()) {
        throw ScenarioError(here, path,
                            "an index below " + std::to_string(cur.size()) + ", the length of " + parent_path,
                            "[" + std::to_string(step.index) + "]");
      }
      YAML::Node item = cur[step.index];
      if (last) {
        item = value;  // through the element's handle: replaces the element in place
        if (owned.empty()) owned = path;
      } else {
        if (item.IsNull()) {
          item = YAML::Node(YAML::NodeType::Map);
          if (owned.empty()) owned = path;
        }
        cur.reset(item);
      }
      continue;
    }

    if (!cur.IsMap()) throw crossing("a mapping");
    const auto existing = find_key(cur, step.key);
    if (last) {
      // Remove and re-add rather than assign through the old node, which an alias may share.
      if (existing) cur.remove(step.key);
      cur[step.key] = value;
      if (owned.empty()) owned = path;
      break;
    }
    if (!existing || existing->IsNull()) {
      if (existing) cur.remove(step.key);
      cur[step.key] = YAML::Node(YAML::NodeType::Map);
      if (owned.empty()) owned = path;
    }
    const auto next = find_key(cur, step.key);
    cur.reset(*next);
  }
  origin_->overrides.push_back(Origin::Override{owned, text});
}

void Document::apply_overrides(const std::vector<std::string>& assignments) {
  for (const std::string& a : assignments) apply_override(a);
}

}  // namespace fathom::scenario
