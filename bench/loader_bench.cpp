// How the scenario loader's time grows with its input (issue 13): a mapping of N keys (the
// loader once checked each key against every earlier one, so 80,000 keys took 39 s) and a
// scenario file of S bytes (a fabric with a long `links:` list, each entry a small mapping).
// Each size is loaded `--repeats` times, interleaved, and the median is kept; the time ratio of
// each doubling is printed: 2 is linear, 4 quadratic. Both inputs are refused (unknown keys, a
// links list longer than the tiers), after the whole file has been read.
//
//   build/bench/loader-bench --repeats 3
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"

using namespace fathom;

namespace {

std::string mapping_of(int keys) {
  std::string text = "seed: 1\ncluster:\n";
  for (int i = 0; i < keys; ++i) text += "  k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  return text;
}

std::string links_of(int links) {
  std::string text =
      "seed: 1\ncluster:\n  nodes: 16\n  node: generic-8gpu-roce\n  fabric:\n    kind: fat-tree\n    tiers: 2\n"
      "    hosts_per_leaf: 16\n    leaves: 2\n    spines: 4\n    links:\n";
  for (int i = 0; i < links; ++i) text += "      - {bandwidth: 100Gbps, latency: 1us}\n";
  return text + "workload:\n  kind: training\n  model: llama3-70b\n";
}

double load_seconds(const std::filesystem::path& file) {
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)scenario::load_scenario(file.string());
  } catch (const scenario::ScenarioError&) {
    // Expected: the inputs are refused once read.
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Series {
  const char* name;
  std::vector<int> sizes;
  std::string (*make)(int);
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fathom scenario loader: load time against input size"};
  int repeats = 3;
  app.add_option("--repeats", repeats, "loads per size (the median is kept)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  const auto dir = std::filesystem::temp_directory_path() / "fathom-loader-bench";
  std::filesystem::create_directories(dir);
  const Series series[] = {{"mapping keys", {25000, 50000, 100000}, &mapping_of},
                           {"links (file bytes)", {75000, 150000, 300000}, &links_of}};
  for (const Series& s : series) {
    std::vector<std::filesystem::path> files;
    std::vector<std::uintmax_t> bytes;
    for (int n : s.sizes) {
      files.push_back(dir / (std::string("n") + std::to_string(n) + ".yaml"));
      std::ofstream(files.back()) << s.make(n);
      bytes.push_back(std::filesystem::file_size(files.back()));
    }
    std::vector<std::vector<double>> times(files.size());
    for (int r = 0; r < repeats; ++r) {
      for (std::size_t i = 0; i < files.size(); ++i) times[i].push_back(load_seconds(files[i]));
    }
    std::printf("%s\n%10s %12s %10s %14s\n", s.name, "n", "bytes", "median_s", "ratio_to_half");
    double previous = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
      std::sort(times[i].begin(), times[i].end());
      const double median = times[i][times[i].size() / 2];
      if (previous > 0) {
        std::printf("%10d %12ju %10.3f %14.2f\n", s.sizes[i], bytes[i], median, median / previous);
      } else {
        std::printf("%10d %12ju %10.3f %14s\n", s.sizes[i], bytes[i], median, "-");
      }
      previous = median;
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
