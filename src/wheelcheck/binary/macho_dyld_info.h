// The tables dyld reads from a Mach-O image's __LINKEDIT: what it binds (the bind and lazy-bind
// opcode streams of LC_DYLD_INFO, the import table of LC_DYLD_CHAINED_FIXUPS) and what the image
// exports (the export trie). Cursors cover exactly one table; offsets in errors are the file's.
#pragma once

#include <string>
#include <vector>

#include "binary/binary_facts.h"
#include "util/cursor.h"

namespace wc {

// The symbols a bind opcode stream binds, each (name, ordinal) once, appended to `out`. A lazy
// stream's entries end with BIND_OPCODE_DONE each; the regular stream ends at its first one.
// Ordinals past `dylibs` (the slice's dylib load commands) are malformed: dyld refuses the image.
void read_bind_opcodes(Cursor c, bool lazy, size_t dylibs, std::vector<MachOImport>& out);

// The imports of a dyld_chained_fixups_header (formats 1-3). False when the symbol strings are
// compressed (symbols_format 1), which this reader does not inflate: nothing is appended then.
bool read_chained_imports(Cursor c, size_t dylibs, std::vector<MachOImport>& out);

// Every name the export trie reaches (re-exports and resolvers too), appended to `out`. A node
// reached twice (a loop) or deeper than 4,096 edges is malformed.
void read_export_trie(Cursor c, std::vector<std::string>& out);

}  // namespace wc
