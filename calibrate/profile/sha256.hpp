// SHA-256 (FIPS 180-4) of a file's bytes, as `sha256sum` prints it: the profile's provenance
// names every measurement file by its hash, so a reader can check which data a fit came from.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fathom::calib {

// Lower-case hex digest of `bytes`.
std::string sha256_hex(std::string_view bytes);

// Of a file's contents; std::runtime_error naming the file when it cannot be read.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace fathom::calib
