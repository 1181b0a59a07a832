// PE/COFF: machine and imported DLL names (import directory).
#pragma once

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

void read_pe(const SparseFile& f, BinaryFacts& out);
std::string pe_machine_arch(uint16_t machine);

}  // namespace wc
