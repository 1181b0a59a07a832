#include "io/inflate.h"

#include "io/zip_stream.h"
#include "util/thread_lease.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace wc {
namespace {

constexpr size_t kIn = 256u << 10, kOut = 1u << 20;

// Buffers and inflate state reused by every entry a thread reads (a wheel has thousands of small
// entries; fresh megabyte buffers for each cost more than inflating them). A read from inside a
// sink (nested) gets buffers of its own (ThreadLease).
struct ThreadBuffers {
  std::vector<uint8_t> in = std::vector<uint8_t>(kIn), out = std::vector<uint8_t>(kOut);
  inflate_state state;
};
using BufferLease = ThreadLease<ThreadBuffers>;

// ISA-L's CRC-32 of 256 bytes or more (crc32_gzip_refl_by16_10 on an AVX-512 machine, inside
// isal_inflate too) returns with zmm0-zmm11 written and no VZEROUPPER. Until something clears the
// upper halves, the legacy-SSE code that follows pays for the mixed state: perf put 90% of the
// CRC's own samples of a 100,000-entry check on its first vector instruction, and 4.7% of the
// whole check on the first instruction of OpenSSL's SHA-NI block function, stalls the floor
// (which asks for no CRC) never has. Cleared after each call where the CPU has AVX (VZEROUPPER
// faults elsewhere); the lower halves, all the SSE code uses, are kept.
void clear_upper_vector_state() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") != 0;
  }();
  if (avx) __asm__ volatile("vzeroupper");
#endif
}

std::string hex32(uint32_t v) {
  char b[12];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

// Compressed bytes of the entry, read from the source in blocks that start small (a prefix read
// of a remote wheel fetches little) and double up to the buffer's size.
class CompressedInput {
 public:
  CompressedInput(Source& src, const ZipEntry& z, std::vector<uint8_t>& buf)
      : src_(src), next_(z.data_offset), left_(z.compressed_size), buf_(buf) {}
  // Refills; returns the bytes now available (0 at the end of the entry's data).
  size_t fill() {
    size_t want = static_cast<size_t>(std::min<uint64_t>(left_, std::min(block_, buf_.size())));
    block_ = std::min(block_ * 2, buf_.size());
    if (want == 0) return 0;
    size_t got = src_.read_at(next_, buf_.data(), want);
    if (got != want)
      throw IoError(src_.display_name() + ": file ends inside entry data at offset " + std::to_string(next_ + got));
    next_ += got, left_ -= got;
    return got;
  }
  uint8_t* data() { return buf_.data(); }
  bool done() const { return left_ == 0; }

 private:
  Source& src_;
  uint64_t next_, left_;
  std::vector<uint8_t>& buf_;
  size_t block_ = 16u << 10;
};

EntryRead finish(EntryRead r, const ZipEntry& z, uint32_t crc) {
  if (!r.error.empty() || r.stopped) return r;
  if (r.bytes != z.uncompressed_size)
    r.error = "entry data ends after " + std::to_string(r.bytes) + " bytes; the central directory says " +
              std::to_string(z.uncompressed_size);
  else if (crc != z.crc32)
    r.error = "CRC-32 of the data is " + hex32(crc) + ", the central directory says " + hex32(z.crc32);
  return r;
}

EntryRead read_stored(Source& src, const ZipEntry& z, const EntrySink& sink, uint64_t limit) {
  EntryRead r;
  BufferLease tb;
  CompressedInput in(src, z, (*tb).in);
  uint32_t crc = 0;
  // Never more than the entry declares, whatever its compressed size says (the mismatch is an error below).
  const uint64_t cap = std::min<uint64_t>(limit, z.uncompressed_size);
  for (size_t n; (n = in.fill()) > 0;) {
    if (r.bytes >= cap) break;
    n = static_cast<size_t>(std::min<uint64_t>(n, cap - r.bytes));
    crc = crc32_gzip_refl(crc, in.data(), n);
    clear_upper_vector_state();
    bool more = sink(in.data(), n, r.bytes);
    r.bytes += n;
    if (!more || r.bytes >= limit) {
      r.stopped = true;
      break;
    }
  }
  if (z.compressed_size != z.uncompressed_size && !r.stopped)
    r.error = "stored entry's compressed size " + std::to_string(z.compressed_size) + " differs from its size " +
              std::to_string(z.uncompressed_size);
  return finish(std::move(r), z, crc);
}

const char* inflate_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    default: return "corrupt deflate stream";
  }
}

EntryRead read_deflated(Source& src, const ZipEntry& z, const EntrySink& sink, uint64_t limit) {
  EntryRead r;
  BufferLease lease;
  ThreadBuffers& tb = *lease;
  CompressedInput in(src, z, tb.in);
  inflate_state* state = &tb.state;
  isal_inflate_init(state);
  state->next_in = nullptr;  // the state is reused: start without the last stream's input
  state->avail_in = 0;
  state->crc_flag = ISAL_GZIP_NO_HDR;  // raw deflate, with the gzip (= zip) CRC-32 of the output
  std::vector<uint8_t>& out = tb.out;
  while (state->block_state != ISAL_BLOCK_FINISH) {
    if (state->avail_in == 0 && !in.done()) {
      size_t n = in.fill();
      state->next_in = in.data();
      state->avail_in = static_cast<uint32_t>(n);
    }
    uint32_t in_before = state->avail_in;
    state->next_out = out.data();
    const uint32_t room =
        static_cast<uint32_t>(std::min<uint64_t>(out.size(), limit - r.bytes));  // no more than asked for
    state->avail_out = room;
    int rc = isal_inflate(state);
    clear_upper_vector_state();
    if (rc < 0) {
      r.error = std::string(inflate_error(rc)) + " after " + std::to_string(r.bytes) + " bytes of output";
      return r;
    }
    size_t n = room - state->avail_out;
    if (n == 0 && state->avail_in == in_before && state->block_state != ISAL_BLOCK_FINISH) {
      // No progress: the compressed data is used up (or the stream cannot go on).
      r.error = "deflate stream ends early, after " + std::to_string(r.bytes) + " of " +
                std::to_string(z.uncompressed_size) + " bytes";
      return r;
    }
    if (n == 0) continue;
    if (n > z.uncompressed_size - r.bytes) {  // never deliver more than the entry declares
      r.error = "entry inflates past its declared size of " + std::to_string(z.uncompressed_size) + " bytes";
      return r;
    }
    bool more = sink(out.data(), n, r.bytes);
    r.bytes += n;
    if (!more || r.bytes >= limit) {
      r.stopped = true;
      return r;
    }
  }
  return finish(std::move(r), z, state->crc);
}

}  // namespace

bool fast_path_supports(const ZipEntry& z) {
  return (z.method == 0 || z.method == 8) && !(z.flags & 0x0001) && z.data_offset != 0;
}

EntryRead read_entry(Source& src, const ZipEntry& z, const EntrySink& sink, uint64_t limit) {
  if (limit == 0) return EntryRead{"", 0, true};
  return z.method == 0 ? read_stored(src, z, sink, limit) : read_deflated(src, z, sink, limit);
}

std::map<size_t, std::string> read_entries(Source& src, const ZipIndex& idx, const std::map<size_t, EntrySink>& sinks) {
  std::map<size_t, std::string> errors;
  std::map<size_t, RereadSink> others;
  for (const auto& [i, sink] : sinks) {
    const ZipEntry& z = idx.entries.at(i);
    if (!fast_path_supports(z)) {
      others[i] = sink;
      continue;
    }
    try {
      EntryRead r = read_entry(src, z, sink);
      if (!r.error.empty()) errors[i] = r.error;
    } catch (const IoError& e) {
      errors[i] = e.what();
    }
  }
  if (!others.empty())
    for (auto& [i, e] : reread_entries(src, idx, others)) errors[i] = std::move(e);
  return errors;
}

}  // namespace wc
