#include "facts/spill.h"

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "binary/binary_facts.h"
#include "util/scratch_file.h"

namespace wc {
namespace {

// Each field of a record, in the order each struct's io() below lists them: written by Out, read
// back by In. Numbers and trivially copyable records go as their bytes (the file is read by
// the process that wrote it), the rest as a length and its elements.
struct Out {
  static constexpr bool reading = false;
  std::string buf;
  void raw(void* p, size_t n) { buf.append(static_cast<const char*>(p), n); }
  size_t length(size_t n, size_t = 1) {
    uint64_t v = n;
    raw(&v, sizeof v);
    return n;
  }
  template <typename... T>
  void operator()(T&... xs);
};

struct In {
  static constexpr bool reading = true;
  const char* p;
  const char* end;
  void raw(void* q, size_t n) {
    if (static_cast<size_t>(end - p) < n) throw std::runtime_error("a spill record ends early");
    if (n) std::memcpy(q, p, n);
    p += n;
  }
  // A count of elements of at least `each` bytes that the bytes left can hold: a damaged record
  // never makes an allocation larger than itself.
  size_t length(size_t, size_t each = 1) {
    uint64_t v = 0;
    raw(&v, sizeof v);
    if (v > static_cast<uint64_t>(end - p) / each) throw std::runtime_error("a spill record names more than it holds");
    return static_cast<size_t>(v);
  }
  template <typename... T>
  void operator()(T&... xs);
};

template <typename A, typename T>
requires std::is_trivially_copyable_v<T>
void io(A& a, T& x) { a.raw(&x, sizeof x); }

template <typename A>
void io(A& a, std::string& s) {
  size_t n = a.length(s.size());
  if constexpr (A::reading) s.resize(n);
  a.raw(s.data(), n);
}

template <typename A, typename T>
void io(A& a, std::vector<T>& v) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    size_t n = a.length(v.size(), sizeof(T));
    if constexpr (A::reading) v.resize(n);
    a.raw(v.data(), n * sizeof(T));
  } else if constexpr (A::reading) {  // each element as it is read: a count that lies fails before it costs
    size_t n = a.length(0);
    v.clear();
    for (size_t i = 0; i < n; ++i) io(a, v.emplace_back());
  } else {
    a.length(v.size());
    for (auto& x : v) io(a, x);
  }
}

template <typename A>
void io(A& a, std::vector<bool>& v) {
  size_t n = a.length(v.size());
  if constexpr (A::reading) v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint8_t b = v[i];
    a.raw(&b, 1);
    if constexpr (A::reading) v[i] = b != 0;
  }
}

template <typename A, typename X, typename Y>
void io(A& a, std::pair<X, Y>& p) {
  io(a, p.first);
  io(a, p.second);
}

template <typename A, typename K, typename V, typename C>
void io(A& a, std::map<K, V, C>& m) {
  size_t n = a.length(m.size());
  if constexpr (A::reading) {
    m.clear();
    for (size_t i = 0; i < n; ++i) {
      std::pair<K, V> kv;
      io(a, kv.first);
      io(a, kv.second);
      m.emplace_hint(m.end(), std::move(kv));
    }
  } else {
    for (auto& [k, v] : m) {
      io(a, const_cast<K&>(k));  // written, never changed
      io(a, v);
    }
  }
}

template <typename A, typename T>
void io(A& a, std::optional<T>& o) {
  bool has = o.has_value();
  io(a, has);
  if constexpr (A::reading) {
    o.reset();
    if (has) io(a, o.emplace());
  } else if (has) {
    io(a, *o);
  }
}

template <typename A>
void io(A& a, std::shared_ptr<const DynamicSymbols>& d) {
  bool has = d != nullptr;
  io(a, has);
  if constexpr (A::reading) {
    d.reset();
    if (!has) return;
    auto fresh = std::make_shared<DynamicSymbols>();
    fresh->transfer(a);
    d = std::move(fresh);
  } else if (has) {
    const_cast<DynamicSymbols&>(*d).transfer(a);  // written, never changed
  }
}

// Every field of each record. A field added to one of these structs must be added here: the
// sizes below stop the build until it is (the spill is the whole record or it judges less).
template <typename A>
void io(A& a, EntryFacts& e) {
  a(e.name, e.kind, e.unix_mode, e.method, e.size, e.compressed_size, e.bytes_read, e.sha256, e.other_digests,
    e.read_error, e.skipped, e.magic, e.version_strings);
}
template <typename A>
void io(A& a, MachOImport& m) {
  a(m.name, m.ordinal, m.weak);
}
template <typename A>
void io(A& a, MachOSlice& s) {
  a(s.arch, s.cputype, s.minos, s.sdk, s.minos_major, s.minos_minor, s.build_platforms, s.dylibs, s.rpaths,
    s.weak_dylibs, s.install_name, s.reexported_dylibs, s.imports, s.exports, s.imports_read, s.exports_read,
    s.export_hashes, s.hashed_namespaces, s.exports_hashed);
}
template <typename A>
void io(A& a, FatbinEntry& e) {
  a(e.kind, e.sm, e.suffix, e.version_major, e.version_minor, e.compression, e.payload_size, e.uncompressed_size,
    e.flags, e.offset, e.container, e.cubin_sm, e.toolkit, e.has_kernels);
}
template <typename A>
void io(A& a, FatbinFacts& f) {
  a(f.containers, f.container_ranges, f.entries);
}
template <typename A>
void io(A& a, HipFacts& h) {
  a(h.targets, h.compression, h.error);
}
template <typename A>
void io(A& a, CxxAbiCount& c) {
  a(c.cxx11, c.pre_cxx11, c.pre_examples);
}
template <typename A>
void io(A& a, BinaryFacts& b) {
  a(b.path, b.format, b.arch, b.elf_class, b.endian, b.machine, b.elf_type, b.osabi, b.abiversion, b.interpreter,
    b.soname, b.needed, b.rpath, b.runpath, b.version_needs, b.version_defs, b.undefined_symbols,
    b.undefined_symbols_read, b.symbols, b.unreachable_exports, b.unreachable_shown, b.module_inits, b.cxx_abi,
    b.cxx_abi_read, b.python_dll_imports, b.x86_isa_level, b.exec_stack, b.libc, b.slices, b.dlls, b.dll_imports,
    b.dll_delay_imports, b.pe_exports, b.pe_forwarders, b.pe_exports_read, b.fatbin, b.hip, b.cuda_toolkit, b.errors,
    b.warnings, b.headers_only);
}

#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(EntryFacts) == 272, "EntryFacts changed: spill its new field (io above), then this size");
static_assert(sizeof(MachOImport) == 40, "MachOImport changed: spill its new field (io above), then this size");
static_assert(sizeof(MachOSlice) == 376, "MachOSlice changed: spill its new field (io above), then this size");
static_assert(sizeof(FatbinEntry) == 168, "FatbinEntry changed: spill its new field (io above), then this size");
static_assert(sizeof(FatbinFacts) == 56, "FatbinFacts changed: spill its new field (io above), then this size");
static_assert(sizeof(HipFacts) == 88, "HipFacts changed: spill its new field (io above), then this size");
static_assert(sizeof(CxxAbiCount) == 40, "CxxAbiCount changed: spill its new field (io above), then this size");
static_assert(sizeof(BinaryFacts) == 1080, "BinaryFacts changed: spill its new field (io above), then this size");
static_assert(sizeof(DynamicSymbols) == 256,
              "DynamicSymbols changed: add its new member to transfer(), then this size");
#endif

template <typename... T>
void Out::operator()(T&... xs) {
  (io(*this, xs), ...);
}
template <typename... T>
void In::operator()(T&... xs) {
  (io(*this, xs), ...);
}

}  // namespace

std::string spill_record(const WheelFacts& f) {
  Out out;
  auto& w = const_cast<WheelFacts&>(f);  // written, never changed
  out(w.entries, w.binaries);
  return std::move(out.buf);
}

void read_spill_record(const std::string& record, WheelFacts& f) {
  In in{record.data(), record.data() + record.size()};
  std::vector<EntryFacts> entries;
  std::vector<BinaryFacts> binaries;
  in(entries, binaries);
  if (in.p != in.end) throw std::runtime_error("a spill record holds more than its facts");
  f.unpark_entries(std::move(entries));
  f.binaries = std::move(binaries);
}

FactsSpill::FactsSpill() : file_("spill") {}

FactsSpill::Place FactsSpill::park(WheelFacts& f) {
  Place at = file_.append(spill_record(f));
  unload(f);
  return at;
}

void FactsSpill::restore(WheelFacts& f, Place at) const { read_spill_record(file_.read(at), f); }

void FactsSpill::unload(WheelFacts& f) {
  f.park_entries();
  std::vector<BinaryFacts>().swap(f.binaries);  // clear() would keep the capacity
}

}  // namespace wc
