#include "util/scratch_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace wc {

int open_scratch_file(const std::string& stem, std::string& dir) {
  const char* env = std::getenv("TMPDIR");
  dir = env && *env ? env : "/tmp";
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string tmpl = dir + "/wheelcheck-" + stem + "-XXXXXX";
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(tmpl.c_str());
  }
  return fd;
}

std::string write_all_at(int fd, const void* p, size_t n, uint64_t off) {
  for (size_t done = 0; done < n;) {
    ssize_t w = ::pwrite(fd, static_cast<const char*>(p) + done, n - done, static_cast<off_t>(off + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return std::strerror(w < 0 ? errno : EIO);
    done += static_cast<size_t>(w);
  }
  return "";
}

std::string read_all_at(int fd, void* p, size_t n, uint64_t off) {
  for (size_t done = 0; done < n;) {
    ssize_t r = ::pread(fd, static_cast<char*>(p) + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return "it ends early";
    if (r < 0) return std::strerror(errno);
    done += static_cast<size_t>(r);
  }
  return "";
}

AppendFile::AppendFile(std::string stem) : stem_(std::move(stem)) {
  fd_ = open_scratch_file(stem_, dir_);
  if (fd_ < 0) throw std::runtime_error("cannot make a " + stem_ + " file in " + dir_ + ": " + std::strerror(errno));
}

AppendFile::~AppendFile() { ::close(fd_); }

AppendFile::Place AppendFile::append(std::string_view bytes) {
  Place at{end_.fetch_add(bytes.size()), bytes.size()};
  if (std::string why = write_all_at(fd_, bytes.data(), bytes.size(), at.offset); !why.empty())
    throw std::runtime_error("cannot write the " + stem_ + " file in " + dir_ + ": " + why);
  return at;
}

std::string AppendFile::read(Place at) const {
  std::string bytes(at.size, '\0');
  if (std::string why = read_all_at(fd_, bytes.data(), bytes.size(), at.offset); !why.empty())
    throw std::runtime_error("cannot read the " + stem_ + " file in " + dir_ + " back: " + why);
  return bytes;
}

}  // namespace wc
