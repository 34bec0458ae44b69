// write_file_atomically: replaces a file with new content all at once or not at all.
//
// fathom promises that a failed run never leaves a half-written output and never clobbers
// the previous one (DESIGN.md, "Scenarios and units"). Every results writer goes through
// here: the content goes to a temporary file beside the target, is flushed to disk, and is
// renamed over the target only when everything succeeded. rename() within one directory is
// atomic on POSIX file systems, so readers see either the old file or the new one.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace fathom::sim {

// Calls `write` with a stream onto a temporary file named
// "<path>.tmp-<pid>-<counter>" in the target's directory, then renames it to `path`.
// On any failure (the temporary cannot be created, `write` throws, the stream fails,
// the disk is full, the rename fails) the temporary is removed, the old file is left as
// it was, and std::runtime_error is thrown naming `path` and the reason; an exception
// from `write` is nested inside it (std::rethrow_if_nested recovers it).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace fathom::sim
