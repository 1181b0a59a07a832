// Unnamed scratch files: a remote wheel's spool (io/http_source.cc), a run's spill file
// (facts/spill.h) and its parked report records (report/stored_json.h), with the positioned reads
// and writes they make.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wc {

// Opens a file in $TMPDIR (or /tmp, `dir` gets the folder) that has no name: O_TMPFILE, else one
// made by mkostemp ("wheelcheck-<stem>-XXXXXX") and unlinked at once, so nothing is left behind
// whatever ends the process. -1 with errno set when neither works.
int open_scratch_file(const std::string& stem, std::string& dir);
// All n bytes at `off`, through EINTR and short transfers: "" when done, else why not (strerror,
// or "it ends early" for a read past the end).
std::string write_all_at(int fd, const void* p, size_t n, uint64_t off);
std::string read_all_at(int fd, void* p, size_t n, uint64_t off);

// A scratch file that only grows: records appended from any number of threads at once, each read
// back by where it lies. `stem` names it in errors ("cannot write the spill file in /tmp: ...").
class AppendFile {
 public:
  struct Place {
    uint64_t offset = 0, size = 0;
  };
  // Throws std::runtime_error naming the folder when no file can be made there.
  explicit AppendFile(std::string stem);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // Throws std::runtime_error when the file cannot take it (a full disk).
  Place append(std::string_view bytes);
  // Throws std::runtime_error when the file cannot be read back.
  std::string read(Place p) const;
  uint64_t bytes() const { return end_; }  // the file's size
  const std::string& dir() const { return dir_; }

 private:
  std::string stem_, dir_;
  int fd_ = -1;
  std::atomic<uint64_t> end_{0};
};

}  // namespace wc
