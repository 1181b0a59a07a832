// How the process asks for memory, where the defaults cost page faults a check need not pay:
// - keep_freed_memory_for_reuse: the allocator keeps what one entry's read frees (capture buffers,
//   symbol tables, grown vectors) for the next instead of returning it to the kernel.
// - advise_huge_pages: a large array about to be filled once is backed by 2 MiB pages.
#pragma once

#include <cstddef>

namespace wc {

// Called once at the start of the process (wheelcheck's main). glibc returns a freed chunk larger
// than its mmap threshold (at most 32 MiB) to the kernel at once, and the free top of a heap past
// its trim threshold (twice the last such chunk); each later allocation of that memory is then a
// page fault per 4 KiB touched again, 30,000 of them in a check of torch (0.05-0.07 s of system
// time). Fixed thresholds keep it for reuse: chunks up to 48 MiB (above the 32 MiB a capture
// retains) come from the heaps, and a heap keeps up to 64 MiB free at its top. A higher trim
// threshold (256 MiB) saved no more faults on torch and held 40-60 MB more at the peak of a
// 400-wheel nightly (bench/nightly.py). A no-op where the C library is not glibc.
void keep_freed_memory_for_reuse();

// Asks the kernel for transparent huge pages over the whole 2 MiB pages inside [p, p + bytes), where
// it grants them on request (THP "madvise", the usual default): an array about to be filled once
// (a wheel's 100,000 entry records, 27 MB) then costs a page fault per 2 MiB, not per 4 KiB. A hint:
// nothing changes where the kernel declines it, or the range holds no whole huge page.
void advise_huge_pages(const void* p, size_t bytes);

// Reserves room for `n` elements of a container about to be filled once, on 2 MiB pages.
template <typename Container>
void reserve_filled_once(Container& c, size_t n) {
  c.reserve(n);
  advise_huge_pages(c.data(), c.capacity() * sizeof(typename Container::value_type));
}

}  // namespace wc
