// Attention kernel throughput as the calibration data publishes it: `implementation,tflops`
// (azure-*/flash_attention*.csv: PyTorch's standard attention and FlashAttention 2).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calib {

struct AttentionPoint {
  std::string implementation;  // as published: "Standard Attention(PyTorch)", "Flash Attention 2.0"
  double tflops = 0;
  int line = 0;
};

struct AttentionResult {
  std::string file;
  std::vector<AttentionPoint> points;
};

extern const std::string kAttentionCsvHeader;  // "implementation,tflops"

AttentionResult parse_attention_csv(const std::filesystem::path& file);
AttentionResult parse_attention_csv_text(std::string_view text, const std::string& file);

}  // namespace fathom::calib
