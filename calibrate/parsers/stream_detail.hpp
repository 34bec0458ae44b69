// Internal to the STREAM parsers.
#pragma once

#include <string>
#include <string_view>

#include "calibrate/parsers/text.hpp"

namespace fathom::calib::detail {

// The caller's memory kind (checked), else the file name's, else `from_content`.
std::string stream_memory(const std::string& file, const std::string& supplied, const std::string& from_content);

// A ParseError naming `field` unless `kernel` is one of stream_kernels().
void check_kernel(const text::Where& where, std::string_view kernel, const std::string& field);

}  // namespace fathom::calib::detail
