// Reading the members of a tar archive held in memory (POSIX ustar and pax, as GNU tar and
// Python write them): a trace that ships as `.tar.gz` is decompressed (gunzip) and its members
// read from here by name. Regular files only; folders, links and pax headers are skipped, a pax
// `path` record renaming the member that follows. Every header's checksum is verified.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fathom::sim {

struct TarMember {
  std::string name;       // its path in the archive
  std::string_view data;  // its bytes, inside the archive given to read_tar
};

// The regular files of `archive`, in archive order. Throws InputFileError for data that is not
// a tar archive, a header whose checksum is wrong, or a member cut short.
std::vector<TarMember> read_tar(std::string_view archive);

}  // namespace fathom::sim
