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
// e_flags matter for 32-bit ARM: manylinux's armv7l means EABI version 5 with hard float
// (EF_ARM_ABI_FLOAT_HARD); soft-float EABI binaries ("armel") run elsewhere.
std::string elf_machine_arch(uint16_t machine, bool big_endian, int elf_class, uint32_t flags = 0x05000400);

}  // namespace wc
