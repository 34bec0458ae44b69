// Disaggregated serving against colocated serving on the same GPUs (docs/inference.md,
// "Disaggregated prefill and decode"): the Azure conversation trace at four times its rate on
// sixteen H100s. Splitting the prompts off holds TPOT steady (decodes no longer wait behind
// prompt chunks), and more requests meet the SLO than on four colocated replicas.
#include <doctest/doctest.h>

#include <string>

#include "report/inference/inference_report.hpp"

using namespace fathom;

namespace {

report::InferenceReport run(const std::string& example, const std::vector<std::string>& overrides = {}) {
  const auto s = scenario::load_scenario(std::string(FATHOM_SOURCE_DIR) + "/scenarios/examples/" + example, overrides);
  return report::evaluate_inference(s);
}

}  // namespace

TEST_CASE("disaggregated 3 prefill + 1 decode replicas beat 4 colocated ones on goodput, on 16 GPUs") {
  const report::InferenceReport split = run("llama3-70b-disaggregated.yaml");
  const report::InferenceReport together =
      run("llama3-70b-azure-conversation.yaml", {"workload.requests.speedup=4", "workload.serving.replicas=4"});
  CHECK(split.metrics.finished == 19366);
  CHECK(together.metrics.finished == 19366);
  CHECK(split.metrics.good_requests > together.metrics.good_requests);
  CHECK(split.metrics.tpot_s.p99 < together.metrics.tpot_s.p99);
  CHECK(split.metrics.tpot_s.p99 <= 0.050);
  // Every request's KV cache moved once; the decode replica prefilled nothing.
  CHECK(split.metrics.kv_transfer_s.count == 19366);
  const infer::ReplicaStats& decode = split.run.replicas[0];
  CHECK(decode.tokens == split.metrics.output_tokens - split.metrics.finished);
  CHECK(split.run.replicas.size() == 4);
  int placed = 0;
  for (const infer::RequestOutcome& o : split.run.requests) placed += o.replica == 0 && o.prefill_replica >= 1 ? 1 : 0;
  CHECK(placed == 19366);
}
