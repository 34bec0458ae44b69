// What a path is when it is not a regular file, in a user's words ("a folder", "a character
// device"): for the errors of input readers and output checks alike.
#pragma once

#include <filesystem>
#include <string>

namespace fathom::sim {

inline std::string describe_file_type(std::filesystem::file_type type) {
  using std::filesystem::file_type;
  switch (type) {
    case file_type::directory:
      return "a folder";
    case file_type::character:
      return "a character device";
    case file_type::block:
      return "a block device";
    case file_type::fifo:
      return "a named pipe";
    case file_type::socket:
      return "a socket";
    default:
      return "something other than a regular file";
  }
}

}  // namespace fathom::sim
