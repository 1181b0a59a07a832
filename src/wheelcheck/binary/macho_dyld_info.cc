#include "binary/macho_dyld_info.h"

#include <set>
#include <utility>

#include "util/budget.h"

namespace wc {
namespace {

uint64_t uleb(Cursor& c) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b = c.u8();
    if (shift >= 64 || (shift == 63 && (b & 0x7e))) Cursor::fail_at("ULEB128 value overflows 64 bits", c.offset() - 1);
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

void sleb(Cursor& c) {  // the value is not needed (addends), only its length
  while (c.u8() & 0x80) {
  }
}

std::string_view cstr(Cursor& c) {
  std::string_view s = c.cstr_at(c.pos());
  c.skip(s.size() + 1);
  return s;
}

int checked_ordinal(int64_t ordinal, size_t dylibs, uint64_t at) {
  if (ordinal > int64_t(dylibs))
    Cursor::fail_at("library ordinal " + std::to_string(ordinal) + " names no dylib (the image loads " +
                        std::to_string(dylibs) + "); dyld refuses it",
                    at);
  if (ordinal < MachOImport::weak_lookup)
    Cursor::fail_at("unknown special library ordinal " + std::to_string(ordinal), at);
  return static_cast<int>(ordinal);
}

class Imports {
 public:
  explicit Imports(std::vector<MachOImport>& out) : out_(out) {
    for (const auto& i : out) seen_.emplace(i.name, i.ordinal);
  }
  void add(std::string_view name, int ordinal, bool weak) {
    if (name.empty() || !seen_.emplace(std::string(name), ordinal).second) return;
    charge_memory(name.size() + sizeof(MachOImport), "Mach-O imports");
    out_.push_back({std::string(name), ordinal, weak});
  }

 private:
  std::vector<MachOImport>& out_;
  std::set<std::pair<std::string, int>> seen_;
};

}  // namespace

void read_bind_opcodes(Cursor c, bool lazy, size_t dylibs, std::vector<MachOImport>& out) {
  Imports imports(out);
  int ordinal = 0;
  std::string_view name;
  bool weak = false;
  while (!c.at_end()) {
    const uint64_t at = c.offset();
    const uint8_t op = c.u8(), imm = op & 0x0f;
    switch (op & 0xf0) {
      case 0x00:  // DONE
        if (!lazy) return;
        break;
      case 0x10: ordinal = checked_ordinal(imm, dylibs, at); break;  // SET_DYLIB_ORDINAL_IMM
      case 0x20: {                                                   // SET_DYLIB_ORDINAL_ULEB
        uint64_t v = uleb(c);
        ordinal = checked_ordinal(v > dylibs ? int64_t(dylibs) + 1 : int64_t(v), dylibs, at);
        break;
      }
      case 0x30:  // SET_DYLIB_SPECIAL_IMM: 0, -1, -2, -3
        ordinal = checked_ordinal(imm == 0 ? 0 : static_cast<int8_t>(0xf0 | imm), dylibs, at);
        break;
      case 0x40:  // SET_SYMBOL_TRAILING_FLAGS_IMM
        weak = imm & 0x1;
        name = cstr(c);
        break;
      case 0x50: break;                                    // SET_TYPE_IMM
      case 0x60: sleb(c); break;                           // SET_ADDEND_SLEB
      case 0x70:                                           // SET_SEGMENT_AND_OFFSET_ULEB
      case 0x80: uleb(c); break;                           // ADD_ADDR_ULEB
      case 0x90:                                           // DO_BIND
      case 0xb0: imports.add(name, ordinal, weak); break;  // DO_BIND_ADD_ADDR_IMM_SCALED
      case 0xa0:                                           // DO_BIND_ADD_ADDR_ULEB
        imports.add(name, ordinal, weak);
        uleb(c);
        break;
      case 0xc0:  // DO_BIND_ULEB_TIMES_SKIPPING_ULEB
        uleb(c), uleb(c);
        imports.add(name, ordinal, weak);
        break;
      case 0xd0:  // THREADED: SET_BIND_ORDINAL_TABLE_SIZE_ULEB (0), APPLY (1)
        if (imm == 0)
          uleb(c);
        else if (imm == 1)
          imports.add(name, ordinal, weak);
        else
          Cursor::fail_at("unknown threaded bind sub-opcode " + std::to_string(imm), at);
        break;
      default: Cursor::fail_at("unknown bind opcode 0x" + std::to_string(op >> 4) + "0", at);
    }
  }
}

bool read_chained_imports(Cursor c, size_t dylibs, std::vector<MachOImport>& out) {
  c.seek(0);
  c.u32();  // fixups_version
  c.u32();  // starts_offset
  const uint32_t imports_offset = c.u32(), symbols_offset = c.u32(), count = c.u32(), format = c.u32(),
                 symbols_format = c.u32();
  if (symbols_format != 0) return false;
  if (format < 1 || format > 3)
    Cursor::fail_at("unknown chained import format " + std::to_string(format), c.offset() - 8);
  const uint64_t size = format == 1 ? 4 : format == 2 ? 8 : 16;
  if (imports_offset > c.size() || count > (c.size() - imports_offset) / size)
    Cursor::fail_at("the chained fixups' import table runs past its data", c.offset() - 12);
  if (symbols_offset > c.size())
    Cursor::fail_at("the chained fixups' symbol strings lie past its data", c.offset() - 16);
  Cursor table = c.sub(imports_offset, uint64_t(count) * size);
  Cursor names = c.sub(symbols_offset, c.size() - symbols_offset);
  Imports imports(out);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t at = table.offset();
    int64_t ordinal;
    bool weak;
    uint32_t name_offset;
    if (format == 3) {
      uint64_t v = table.u64();
      table.u64();  // addend
      uint16_t raw = v & 0xffff;
      ordinal = raw >= 0xfff0 ? int64_t(static_cast<int16_t>(raw)) : int64_t(raw);
      weak = (v >> 16) & 1;
      name_offset = static_cast<uint32_t>(v >> 32);
    } else {
      uint32_t v = table.u32();
      if (format == 2) table.u32();  // addend
      uint8_t raw = v & 0xff;
      ordinal = raw >= 0xf0 ? int64_t(static_cast<int8_t>(raw)) : int64_t(raw);
      weak = (v >> 8) & 1;
      name_offset = v >> 9;
    }
    imports.add(names.cstr_at(name_offset), checked_ordinal(ordinal, dylibs, at), weak);
  }
  return true;
}

void read_export_trie(Cursor c, std::vector<std::string>& out) {
  if (c.size() == 0) return;
  struct Node {
    uint64_t off;
    std::string prefix;
    unsigned depth;
  };
  std::vector<Node> stack{{0, "", 0}};
  std::set<uint64_t> visited;
  while (!stack.empty()) {
    Node n = std::move(stack.back());
    stack.pop_back();
    if (!visited.insert(n.off).second) Cursor::fail_at("the export trie reaches one node twice (a loop)", c.offset());
    if (n.depth > 4096) Cursor::fail_at("the export trie is deeper than 4,096 edges", c.offset());
    c.seek(n.off);
    const uint64_t terminal = uleb(c);
    if (terminal) {
      charge_memory(n.prefix.size() + sizeof(std::string), "Mach-O exports");
      out.push_back(n.prefix);
    }
    c.skip(terminal);
    const uint8_t children = c.u8();
    for (unsigned i = 0; i < children; ++i) {
      std::string_view edge = cstr(c);
      const uint64_t child = uleb(c);
      if (child >= c.size()) Cursor::fail_at("an export trie edge points past the trie", c.offset());
      charge_memory(n.prefix.size() + edge.size(), "Mach-O export trie walk");
      stack.push_back({child, n.prefix + std::string(edge), n.depth + 1});
    }
  }
}

}  // namespace wc
