#include "util/scratch_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

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

}  // namespace wc
