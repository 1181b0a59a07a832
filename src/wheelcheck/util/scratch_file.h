// Unnamed scratch files: a remote wheel's spool (io/http_source.cc) and a run's spill file
// (facts/spill.h), with the positioned reads and writes both make.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wc {

// Opens a file in $TMPDIR (or /tmp, `dir` gets the folder) that has no name: O_TMPFILE, else one
// made by mkostemp ("wheelcheck-<stem>-XXXXXX") and unlinked at once, so nothing is left behind
// whatever ends the process. -1 with errno set when neither works.
int open_scratch_file(const std::string& stem, std::string& dir);
// All n bytes at `off`, through EINTR and short transfers: "" when done, else why not (strerror,
// or "it ends early" for a read past the end).
std::string write_all_at(int fd, const void* p, size_t n, uint64_t off);
std::string read_all_at(int fd, void* p, size_t n, uint64_t off);

}  // namespace wc
