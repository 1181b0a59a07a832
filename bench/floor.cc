// The floor of a full check (issue 48): every entry of a wheel inflated by ISA-L and its bytes
// hashed by OpenSSL's SHA-256, nothing else. A full `wheelcheck check` does at least this (RECORD
// needs every hash), so its CPU-seconds over the floor's say what the rest costs.
//
//   wheelcheck-floor WHEEL [-j N]
//
// Prints one line of JSON: entries, bytes inflated, wall and CPU seconds (user + system, all
// threads), and the wall of the slowest single entry (the least any number of threads can take). The central directory
// and local headers are read with wheelcheck's own index (the same reads a check makes; milliseconds beside the
// inflating); entries go to N threads from a shared counter in archive order, as the check's pool takes them.
#include <isa-l/igzip_lib.h>
#include <openssl/evp.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/source.h"
#include "io/zip_index.h"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Worker {
  std::vector<uint8_t> in = std::vector<uint8_t>(256u << 10), out = std::vector<uint8_t>(1u << 20);
  inflate_state state{};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Worker() { EVP_MD_CTX_free(md); }

  // The entry's uncompressed size, or -1 when its data cannot be inflated.
  int64_t run(wc::Source& src, const wc::ZipEntry& z) {
    EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
    uint64_t next = z.data_offset, left = z.compressed_size, produced = 0;
    if (z.method == 0) {
      while (left) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(left, in.size()));
        if (src.read_at(next, in.data(), n) != n) return -1;
        EVP_DigestUpdate(md, in.data(), n);
        next += n, left -= n, produced += n;
      }
    } else if (z.method == 8) {
      isal_inflate_init(&state);
      state.crc_flag = ISAL_DEFLATE;
      while (state.block_state != ISAL_BLOCK_FINISH) {
        if (state.avail_in == 0 && left) {
          size_t n = static_cast<size_t>(std::min<uint64_t>(left, in.size()));
          if (src.read_at(next, in.data(), n) != n) return -1;
          state.next_in = in.data(), state.avail_in = static_cast<uint32_t>(n);
          next += n, left -= n;
        }
        state.next_out = out.data(), state.avail_out = static_cast<uint32_t>(out.size());
        const uint32_t before_in = state.avail_in;
        if (isal_inflate(&state) != ISAL_DECOMP_OK) return -1;
        const size_t got = out.size() - state.avail_out;
        EVP_DigestUpdate(md, out.data(), got);
        produced += got;
        if (got == 0 && state.avail_in == before_in && left == 0 && state.block_state != ISAL_BLOCK_FINISH) return -1;
      }
    } else {
      return -1;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(md, digest, &len);
    return static_cast<int64_t>(produced);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: wheelcheck-floor WHEEL [-j N]\n";
    return 2;
  }
  unsigned jobs = 1;
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "-j") jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[i + 1])));
  const auto t0 = std::chrono::steady_clock::now();
  try {
    wc::FileSource src(argv[1]);
    const wc::ZipIndex idx = wc::read_zip_index(src);
    if (!idx.ok()) {
      std::cerr << argv[1] << ": " << idx.fatal.front().message << "\n";
      return 1;
    }
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> inflated{0}, failed{0};
    std::atomic<double> longest{0};  // the slowest single entry: no number of threads beats it
    auto work = [&] {
      Worker w;
      for (size_t i; (i = next++) < idx.entries.size();) {
        const auto& z = idx.entries[i];
        if (z.kind == wc::EntryKind::directory || z.overlaps) continue;
        const auto e0 = std::chrono::steady_clock::now();
        const int64_t n = w.run(src, z);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
        for (double seen = longest.load(); took > seen && !longest.compare_exchange_weak(seen, took);) {
        }
        if (n < 0)
          ++failed;
        else
          inflated += static_cast<uint64_t>(n);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << nlohmann::json{{"wheel", argv[1]},
                                {"entries", idx.entries.size()},
                                {"inflated_bytes", inflated.load()},
                                {"failed", failed.load()},
                                {"jobs", jobs},
                                {"wall_s", wall},
                                {"longest_entry_s", longest.load()},
                                {"cpu_s", cpu_seconds()}}
                     .dump()
              << "\n";
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
