#include "io/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/memory.h"

namespace wc {

std::vector<uint8_t> Source::read_exact(uint64_t off, size_t n) {
  std::vector<uint8_t> buf;
  reserve_filled_once(buf, n);  // a central directory of 100,000 entries is 6 MB
  buf.resize(n);
  size_t got = read_at(off, buf.data(), n);
  if (got != n)
    throw IoError(display_name() + ": wanted " + std::to_string(n) + " bytes at offset " + std::to_string(off) +
                  ", file ends after " + std::to_string(off + got));
  return buf;
}

FileSource::FileSource(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError(path_ + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError(path_ + ": not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

size_t FileSource::read_at(uint64_t off, void* buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd_, static_cast<char*>(buf) + done, n - done, static_cast<off_t>(off + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw IoError(path_ + ": read error: " + std::strerror(errno));
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  read_ += done;
  return done;
}

size_t MemorySource::read_at(uint64_t off, void* buf, size_t n) {
  if (off >= data_->size()) return 0;
  size_t k = std::min<uint64_t>(n, data_->size() - off);
  if (k) std::memcpy(buf, data_->data() + off, k);
  return k;
}

}  // namespace wc
