// Mach-O, thin and fat/universal (32- and 64-bit fat headers).
#pragma once

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

bool is_macho_magic(uint32_t be_magic, uint32_t second_word_be);
void read_macho(const SparseFile& f, BinaryFacts& out);
// The first MiB of every slice (its header and load commands), from the fat header.
CapturePlan macho_capture_plan(const SparseFile& f);
std::string macho_cpu_arch(uint32_t cputype);

}  // namespace wc
