// ELF (32/64-bit, little and big endian), normalised at read time into one native shape.
#pragma once

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

struct ElfLayout {  // what the fatbin filter needs from the section table
  std::optional<ByteRange> nv_fatbin;
};

// Fills `out` from `f`. Throws ParseError (structure) or NeedRanges (bytes not yet fetched).
ElfLayout read_elf(const SparseFile& f, BinaryFacts& out);
// The ELF header and program headers alone (what a prefix of the file shows): class, machine, type,
// executable stack, interpreter when present. Throws ParseError, or NeedRanges for the headers.
void read_elf_headers(const SparseFile& f, BinaryFacts& out);

// From the ELF header and program headers alone (NeedRanges for those): the ranges the reader
// will need, so one streaming pass keeps them. The dynamic tables (.dynstr, version records,
// .dynsym) sit before the dynamic section that locates them, in the first loadable segment: keep
// that segment (up to `head_cap`) until the dynamic section has streamed past.
CapturePlan elf_capture_plan(const SparseFile& f, uint64_t head_cap);
// The tables the dynamic section locates (.dynstr, version records, .dynsym), from the headers and
// the dynamic section alone; NeedRanges for those.
std::vector<ByteRange> elf_dynamic_ranges(const SparseFile& f);
// e_flags matter for 32-bit ARM: manylinux's armv7l means EABI version 5 with hard float
// (EF_ARM_ABI_FLOAT_HARD); soft-float EABI binaries ("armel") run elsewhere.
std::string elf_machine_arch(uint16_t machine, bool big_endian, int elf_class, uint32_t flags = 0x05000400);

}  // namespace wc
