#include "report/parameter_table.hpp"

#include <sstream>
#include <string_view>
#include <vector>

#include "models/collectives/collective_parameters.hpp"
#include "models/cost/cost_spec.hpp"
#include "models/hardware/accelerator_parameters.hpp"
#include "models/hardware/node_parameters.hpp"
#include "models/hardware/wafer_parameters.hpp"
#include "models/network/fabric_parameters.hpp"
#include "models/params/parameter_text.hpp"
#include "models/reliability/availability.hpp"
#include "models/reliability/failure_spec.hpp"
#include "models/storage/storage_tier.hpp"
#include "models/workloads/inference/serving_spec.hpp"
#include "models/workloads/training/data_loading.hpp"
#include "models/workloads/training/model_parameters.hpp"
#include "models/workloads/training/parallel_parameters.hpp"
#include "models/workloads/training/training_parameters.hpp"
#include "models/workloads/wafer/wafer_training_parameters.hpp"
#include "scenarios/report_section.hpp"

namespace fathom::report {

namespace {

// A table cell: pipes escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// `defaults`: false for specs whose every key a catalog entry must give (the struct's zeroes are
// no one's default).
template <class Spec>
void table(std::ostringstream& md, std::string_view title, std::string_view intro,
           const std::vector<params::Parameter<Spec>>& declared, bool defaults = true) {
  md << "## " << title << "\n\n" << intro << "\n\n";
  md << "| key | quantity | default | calibrated as | meaning | default from |\n";
  md << "|---|---|---|---|---|---|\n";
  for (const auto& p : declared) {
    std::string quantity(params::quantity_name(p.quantity));
    if (p.quantity == params::Quantity::kChoice) {
      quantity = "one of";
      for (auto w : params::choice_words(p.choices)) quantity += " `" + std::string(w) + "`";
    }
    if (p.positive) quantity += ", above 0";
    if (p.max < 1e300) quantity += ", at most " + params::readable_text(p.quantity, p.max, p.choices);
    const std::string default_text =
        defaults ? "`" + params::readable_text(p.quantity, p.default_value(), p.choices) + "`" : "the entry's";
    md << "| `" << p.key << "` | " << cell(quantity) << " | " << default_text << " | "
       << (p.fit_name.empty() ? std::string("—") : "`" + std::string(p.fit_name) + "`") << " | " << cell(p.doc) << " | "
       << cell(p.source) << " |\n";
  }
  md << "\n";
}

}  // namespace

std::string parameter_tables_markdown() {
  std::ostringstream md;
  md << "# Declared parameters\n\n"
        "Generated from the code by `build/tests/parameter-table > docs/parameters.md` (the ctest\n"
        "`parameter_table_docs` fails while this file and the code disagree): do not edit it by hand.\n\n"
        "Each spec declares its parameters once (`models/params/parameter.hpp`): key, quantity, the\n"
        "member it sets, one line of meaning and the source of its default. The scenario loader and\n"
        "`--set` read that declaration, a calibrated profile writes the keys it fitted from it, and\n"
        "`fathom calibrate` names them in its report by the `calibrated as` column. A default is the\n"
        "struct member's initialiser; a catalog entry (a node, an accelerator's efficiencies) replaces\n"
        "it where the entry says so ([hardware.md](hardware.md)). Quantities take units as\n"
        "[scenarios.md](scenarios.md#units) describes.\n\n";
  table(md, "`collectives:`",
        "A scenario's or a calibrated profile's `collectives:` section; `efficiency.ring` is written\n"
        "`efficiency: {ring: 0.8}`. Models: [collectives.md](collectives.md), "
        "[nccl-tests.md](nccl-tests.md).",
        coll::collective_parameters());
  table(md, "`cluster.node` and node catalog entries",
        "A scenario's `cluster.node` mapping (with or without `base:`) and each entry of a node\n"
        "catalog, which adds `source`, `accelerator` and `measured_as` ([hardware.md](hardware.md#nodes)).",
        hw::node_parameters());
  table(md, "`cluster.fabric`",
        "A scenario's scale-out fabric; the per-tier `links` list (`{bandwidth, latency}` from the NICs\n"
        "up) is described in [scenarios.md](scenarios.md#cluster), the derivation of counts in\n"
        "[topology.md](topology.md).",
        net::fabric_parameters());
  table(md, "Accelerator entries and `hardware.accelerator`",
        "An accelerator catalog entry (every key required: defaults are the entry's) and a scenario's or a\n"
        "profile's override over one (`base:`); the efficiencies are under `efficiency:` (next table)\n"
        "([hardware.md](hardware.md#accelerators)).",
        hw::accelerator_parameters(), false);
  table(md, "`efficiency` of an accelerator",
        "Besides `gemm_curve` and `gemm_tiles` ([hardware.md](hardware.md)); a catalog entry gives each\n"
        "one with its source in `efficiency_source`.",
        hw::efficiency_parameters());
  table(md, "`efficiency.gemm_tiles` of an accelerator",
        "The GEMM tile model `fathom calibrate` fits; every key required when the mapping is given,\n"
        "`none` removes it. `efficiency.gemm_tiles_bf16` takes the same keys (with `precision: bf16`): a\n"
        "second model for BF16 GEMMs, fitted on measured layer GEMMs ([hardware.md](hardware.md)).",
        hw::gemm_tiles_parameters());
  table(md, "`efficiency.memory_kernels.<kernel>` of an accelerator",
        "The measured cost of one memory-bound kernel class (`norm`, `rotary`, `activation`, `residual`):\n"
        "max(`min`, `launch` + bytes / `bandwidth`); every key required when the kernel is given, `none`\n"
        "removes it ([hardware.md](hardware.md#memory-bound-kernels-memory_kernels)).",
        hw::memory_kernel_parameters());
  table(md, "Switch entries", "A scale-out switch of the hardware catalog ([hardware.md](hardware.md)).",
        hw::switch_parameters(), false);
  table(md, "`workload` with `kind: training`",
        "A training run's own keys, beside `kind`, `model` (next table) and `parallel` (the table after);\n"
        "`sequence` and `global_batch` are required ([training.md](training.md)).",
        train::training_parameters());
  table(md, "Model zoo entries and `workload.model`",
        "A transformer's shape: a zoo entry (every key required but kv_heads, experts and top_k) or a\n"
        "scenario's mapping over one (`base:`) ([models.md](models.md)).",
        train::model_parameters(), false);
  table(md, "`workload.parallel`",
        "A training scenario's parallel strategy ([training.md](training.md)); the lists `stage_layers`,\n"
        "`chunk_layers` and `order` are described in [scenarios.md](scenarios.md#workload-with-kind-training).",
        train::parallel_parameters());
  table(md, "`workload.serving` (kind: inference)",
        "How an inference service's replicas run the model ([inference.md](inference.md)); beside these,\n"
        "`dispatch_delay` (a duration, default 0) is the hop from the router to a replica and back.",
        infer::serving_parameters());
  table(md, "`cluster.system` (kind: wafer-scale) and wafer-scale system entries",
        "A wafer-scale system: a catalog entry of `scenarios/hardware/wafer.yaml` (every key required; 0 where\n"
        "the vendor publishes no figure) or a scenario's mapping over one (`base:`) ([wafer.md](wafer.md)).",
        hw::wafer_system_parameters(), false);
  table(md, "`cluster.memoryx` and MemoryX entries",
        "The appliance that holds the weights and optimizer state and runs the update ([wafer.md](wafer.md)).",
        hw::memoryx_parameters(), false);
  table(md, "`cluster.swarmx` and SwarmX entries",
        "The broadcast-reduce tree between MemoryX and the systems ([wafer.md](wafer.md)); without the key, the\n"
        "catalog's `swarmx`.",
        hw::swarmx_parameters(), false);
  table(md, "`cluster.input_worker` and input worker entries",
        "A server streaming the training data to the systems ([wafer.md](wafer.md)); `cluster.input_workers`\n"
        "(default 0: not modelled) says how many, and without the key the catalog's `input-worker`.",
        hw::input_worker_parameters(), false);
  table(md, "`workload` with `kind: training` on a wafer-scale cluster",
        "Weight-streaming training's keys beside `kind` and `model`; `global_batch` is required\n"
        "([wafer.md](wafer.md)).",
        wafer::wafer_training_parameters());
  table(md, "`cost`",
        "A scenario's cost model ([cost.md](cost.md)): beside these, `switch` names the fabric's switch in\n"
        "the switch catalog (default `quantum-2-qm9700`); `nic_leaf.port_price` is written\n"
        "`nic_leaf: {port_price: $625}`. A node's price and power and the switch's price default to the\n"
        "price list (`scenarios/hardware/prices.yaml`), the switch's power to its catalog entry.",
        cost::cost_parameters());
  table(md, "`storage.<tier>`",
        "A storage tier, under a name of your choice ([run.md](run.md)): `read_bandwidth` and `write_bandwidth`,\n"
        "or `servers:` and its drives and network, or `entry:` a tier of the storage catalog\n"
        "(`scenarios/hardware/storage.yaml`, [run.md](run.md#from-the-catalog)) whose keys these override.",
        storage::tier_parameters());
  table(md, "`workload.data`",
        "What each training step reads ([run.md](run.md#data-loading-modelsworkloadstrainingdata_loadinghpp)):\n"
        "beside these, `tier` (required) names the storage tier read from and `cache` a `local_nvme` tier\n"
        "that caches what was read; one of `bytes_per_sample` and `bytes_per_token` is required.",
        train::data_parameters());
  table(md, "`failures`",
        "What the cluster does about failures in a whole run ([run.md](run.md)); `failures: none` turns them off,\n"
        "and `components` (next table) overrides the default table's classes.",
        rel::failure_parameters());
  table(md, "`failures.components.<class>`",
        "One failure class: gpu, hbm, nic, fabric, host, power, software or maintenance ([run.md](run.md)).\n"
        "Beside these, `detection` (a duration; default `failures.detection`) is the class's own time to detect.",
        rel::component_parameters(), false);
  table(md, "`availability`",
        "A service's replicas and repairs ([run.md](run.md#availability-of-a-service)); `mtbf` and `repair` are\n"
        "required, and `depends_on` (next table) names its dependencies.",
        rel::service_parameters());
  table(md, "`availability.depends_on.<name>`",
        "A dependency in series with the service (a storage tier, the network), under a name of your choice;\n"
        "both keys required.",
        rel::dependency_parameters(), false);
  table(md, "`report`",
        "What `fathom report` holds the cluster to ([go-live.md](go-live.md)): beside these, `pilot` names the\n"
        "pilot's scenario file (relative to this scenario's folder), shown beside this cluster with the\n"
        "scaling efficiency, and `service` an inference service's scenario, whose P99 latencies are held to\n"
        "its SLO. `expect: mfu` replaces `mfu`.",
        scenario::report_parameters());
  return md.str();
}

}  // namespace fathom::report
