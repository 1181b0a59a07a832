// PE/COFF: machine and imported DLL names (import directory).
#pragma once

#include "binary/binary_facts.h"
#include "binary/sparse_file.h"

namespace wc {

// Returns the file range of the `.nv_fatb` section (NVIDIA's fatbins in a Windows binary), if any.
std::optional<ByteRange> read_pe(const SparseFile& f, BinaryFacts& out);
// What the streaming capture keeps of a PE file once its headers are in: the section that holds
// the import directory, and the other small data sections (where import names may point), so the
// imports are read in the single pass wherever they lie (at the end of an 11 MB .pyd included).
CapturePlan pe_capture_plan(const SparseFile& f);
std::string pe_machine_arch(uint16_t machine);

}  // namespace wc
