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
std::string elf_machine_arch(uint16_t machine, bool big_endian, int elf_class);

}  // namespace wc
