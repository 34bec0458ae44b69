// The Azure LLM inference traces (Patel et al., "Splitwise", ISCA 2024; data/traces/
// azure-llm-inference-2023/SOURCES.md): one row per request, `TIMESTAMP,ContextTokens,
// GeneratedTokens`, the timestamp a wall-clock time with up to 7 decimals of a second
// ("2023-11-16 18:15:46.6805900"). Read into requests whose arrivals count from the first row's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/workloads/inference/requests.hpp"
#include "scenarios/errors.hpp"
#include "sim/time.hpp"

namespace fathom::scenario {

struct AzureLlmTrace {
  std::vector<infer::Request> requests;  // in file order, arrivals from the first row's time
  std::vector<int> lines;                // each request's line in the file
  sim::SimTime first;                    // the first row's time, ns since 1970-01-01 (UTC assumed)
};

// Parses `text` (LF line endings) named `file` in messages. Rows must be in time order; token
// counts are whole numbers, ContextTokens at least 1 and GeneratedTokens at least 1 (a request
// that generates nothing is not served). Every error is a ScenarioError at the row's
// FILE:LINE:COLUMN.
AzureLlmTrace parse_azure_llm(const std::string& file, std::string_view text);

// The same from a file, plain or gzip; one that cannot be read is a ScenarioError at `named_at`.
AzureLlmTrace read_azure_llm(const std::string& path, const Location& named_at, const std::string& key);

}  // namespace fathom::scenario
