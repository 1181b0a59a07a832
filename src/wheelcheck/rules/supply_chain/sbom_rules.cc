#include "rules/supply_chain/sbom_rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "binary/binary_facts.h"
#include "util/digest.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"
#include "wheel/version.h"

namespace wc {
namespace {

constexpr size_t kMaxHashFindings = 10;  // WC904 hash differences listed per document

struct KnownLibrary {
  std::string_view stem;  // file name up to its first dot, graft hash removed; '*' at the end: a prefix
  std::string_view upstream;
  bool security;
  // Names an SBOM component gives it (distro packages, upstream), besides the stem itself.
  std::vector<std::string_view> names;
  // Whether the file name's version is the upstream version (libcrypto.so.1.1.1k is OpenSSL 1.1.1k;
  // libpq.so.5.13 is not PostgreSQL 5.13).
  bool file_version_is_upstream = false;
};

const std::vector<KnownLibrary>& known_libraries() {
  static const std::vector<KnownLibrary> t = {
      {"libssl", "OpenSSL", true, {"openssl", "openssl-libs", "libssl3", "libssl1.1", "libssl3t64", "libssl"}, true},
      {"libcrypto", "OpenSSL", true, {"openssl", "openssl-libs", "libssl3", "libssl1.1", "libcrypto3"}, true},
      {"libcurl", "curl", true, {"curl", "libcurl", "libcurl4", "libcurl-minimal", "curl-minimal"}},
      {"libpq", "PostgreSQL libpq", true, {"postgresql", "libpq", "libpq5", "postgresql-libs", "libpq-devel"}},
      {"libavcodec", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libavformat", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libavutil", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libavfilter", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libavdevice", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libswscale", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libswresample", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libavif", "libavif", true, {"libavif", "libavif16"}},
      {"libvpx", "libvpx", true, {"libvpx", "libvpx9"}},
      {"libaom", "AOM AV1", true, {"aom", "libaom", "libaom3"}},
      {"libdav1d", "dav1d", true, {"dav1d", "libdav1d"}},
      {"libbrotli*", "Brotli", true, {"brotli", "libbrotli"}},
      {"libcrypt", "libxcrypt", false, {"libxcrypt", "libcrypt1"}},
      {"libdrm", "libdrm", false, {"libdrm"}},
      {"libpostproc", "FFmpeg", true, {"ffmpeg", "ffmpeg-libs"}},
      {"libxml2", "libxml2", true, {"libxml2"}, true},
      {"libxslt", "libxslt", true, {"libxslt"}, true},
      {"libexslt", "libxslt", true, {"libxslt"}},
      {"libz", "zlib", true, {"zlib", "zlib1g", "zlib-ng", "zlib-ng-compat"}, true},
      {"libssh2", "libssh2", true, {"libssh2", "libssh2-1"}},
      {"libssh", "libssh", true, {"libssh"}},
      {"libnghttp2", "nghttp2", true, {"nghttp2", "libnghttp2", "libnghttp2-14"}},
      {"libkrb5", "MIT Kerberos", true, {"krb5", "krb5-libs", "libkrb5-3"}},
      {"libgssapi_krb5", "MIT Kerberos", true, {"krb5", "krb5-libs", "libgssapi-krb5-2"}},
      {"libk5crypto", "MIT Kerberos", true, {"krb5", "krb5-libs", "libk5crypto3"}},
      {"libkrb5support", "MIT Kerberos", true, {"krb5", "krb5-libs", "libkrb5support0"}},
      {"libldap*", "OpenLDAP", true, {"openldap", "libldap", "openldap-libs"}},
      {"liblber*", "OpenLDAP", true, {"openldap", "libldap", "openldap-libs"}},
      {"libsasl2", "Cyrus SASL", true, {"cyrus-sasl", "cyrus-sasl-lib", "libsasl2-2"}},
      {"libexpat", "Expat", true, {"expat", "libexpat1"}},
      {"libpng*", "libpng", true, {"libpng", "libpng16", "libpng16-16"}},
      {"libjpeg", "libjpeg-turbo", true, {"libjpeg-turbo", "libjpeg", "libjpeg62-turbo", "libjpeg8"}},
      {"libturbojpeg", "libjpeg-turbo", true, {"libjpeg-turbo", "turbojpeg"}},
      {"libopenjp2", "OpenJPEG", true, {"openjpeg", "openjpeg2", "libopenjp2-7"}},
      {"libtiff", "libtiff", true, {"libtiff", "libtiff6", "libtiff5"}},
      {"libwebp*", "libwebp", true, {"libwebp", "libwebp7"}},
      {"libsharpyuv", "libwebp", true, {"libwebp"}},
      {"libsqlite3", "SQLite", true, {"sqlite", "sqlite-libs", "libsqlite3-0"}},
      {"libgnutls", "GnuTLS", true, {"gnutls"}},
      {"libidn2", "libidn2", true, {"libidn2", "libidn2-0"}},
      {"libfreetype", "FreeType", true, {"freetype", "libfreetype6"}},
      {"libharfbuzz", "HarfBuzz", true, {"harfbuzz"}},
      {"liblcms2", "Little CMS", true, {"lcms2", "liblcms2-2", "little cms", "little cms 2"}},
      {"libhdf5*", "HDF5", true, {"hdf5"}},
      {"libnetcdf", "netCDF-C", true, {"netcdf", "netcdf-c"}},
      {"libzstd", "Zstandard", false, {"zstd", "libzstd", "libzstd1"}, true},
      {"liblzma", "XZ Utils", true, {"xz", "xz-libs", "liblzma5"}, true},
      {"libbz2", "bzip2", false, {"bzip2", "bzip2-libs", "libbz2-1.0"}, true},
      {"libffi", "libffi", false, {"libffi", "libffi8"}},
      {"libgomp", "GCC OpenMP runtime", false, {"libgomp", "gcc", "libgomp1"}},
      {"libgfortran", "GCC Fortran runtime", false, {"libgfortran", "gcc-gfortran", "libgfortran5"}},
      {"libquadmath", "GCC quadmath", false, {"libquadmath", "gcc", "libquadmath0"}},
      {"libopenblas*", "OpenBLAS", false, {"openblas", "openblas-openmp", "openblas-pthreads"}},
      {"libscipy_openblas*", "OpenBLAS", false, {"openblas", "scipy-openblas32", "scipy-openblas64"}},
      {"libgmp", "GMP", false, {"gmp", "libgmp10"}},
      {"libuv", "libuv", false, {"libuv", "libuv1"}},
      {"libxcb*", "libxcb", false, {"libxcb"}},
      {"libX11", "libX11", false, {"libx11"}},
      {"libicu*", "ICU", true, {"icu", "libicu"}},
      {"libpcre*", "PCRE", false, {"pcre", "pcre2"}},
      {"libselinux", "libselinux", false, {"libselinux"}},
      {"libkeyutils", "keyutils", false, {"keyutils", "keyutils-libs"}},
      {"libcom_err", "e2fsprogs", false, {"e2fsprogs", "libcom_err", "e2fsprogs-libs"}},
  };
  return t;
}

const KnownLibrary* known_library(std::string_view stem) {
  for (const auto& k : known_libraries()) {
    if (k.stem.ends_with('*') ? stem.starts_with(k.stem.substr(0, k.stem.size() - 1)) : stem == k.stem) return &k;
  }
  return nullptr;
}

bool is_hex8(std::string_view s) {
  return s.size() >= 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// OpenSSL's (and other MSVC builds') Windows names carry the ABI version and the architecture:
// libcrypto-3-x64 and libssl-1_1-x64 (delvewheel's hash already removed), libcrypto-3 (x86),
// libcrypto-3-arm64 are libcrypto and libssl.
std::string windows_dll_stem(std::string stem) {
  for (std::string_view arch : {"-x64", "-arm64", "-x86", "-win64", "-win32"})
    if (ends_with_ci(stem, arch)) {
      stem.resize(stem.size() - arch.size());
      break;
    }
  auto dash = stem.rfind('-');
  if (dash != std::string::npos && dash > 0 && dash + 1 < stem.size() &&
      std::all_of(stem.begin() + static_cast<std::ptrdiff_t>(dash) + 1, stem.end(),
                  [](char c) { return (c >= '0' && c <= '9') || c == '_'; }))
    stem.resize(dash);
  return stem;
}

// "libcrypto-3b5ab3b1.so.1.1.1k" -> ("libcrypto.so.1.1.1k", "3b5ab3b1"): auditwheel inserts the hash
// before the name's first dot; delvewheel ("libfoo-<hash>.dll") does the same.
}  // namespace

std::pair<std::string, std::string> without_graft_hash(std::string_view name) {
  auto dot = name.find('.');
  std::string_view base = name.substr(0, dot);
  auto dash = base.rfind('-');
  if (dash == std::string_view::npos || !is_hex8(base.substr(dash + 1))) return {std::string(name), ""};
  std::string rest = dot == std::string_view::npos ? "" : std::string(name.substr(dot));
  return {std::string(base.substr(0, dash)) + rest, std::string(base.substr(dash + 1))};
}

namespace {

bool is_extension_module(const WheelFacts& f, const std::string& entry) {
  if (auto s = extension_suffix(last_component(entry)); s && s->python_extension && !s->abi.empty()) return true;
  for (const auto& b : f.binaries)
    if (b.path == entry) return !b.module_inits.empty();
  return false;
}

// The places a system library is grafted from: auditwheel hashes the library's real path, which is
// one of these joined with the original file name (manylinux: /lib64, /usr/lib64; musllinux:
// /usr/lib, /lib; Debian-based images: the multiarch directories).
std::vector<std::string> source_path_hashes(const std::string& original) {
  static const char* const dirs[] = {"/lib64/",
                                     "/usr/lib64/",
                                     "/lib/",
                                     "/usr/lib/",
                                     "/usr/local/lib/",
                                     "/usr/local/lib64/",
                                     "/lib/x86_64-linux-gnu/",
                                     "/usr/lib/x86_64-linux-gnu/",
                                     "/lib/aarch64-linux-gnu/",
                                     "/usr/lib/aarch64-linux-gnu/",
                                     "/usr/lib64/openssl3/",
                                     "/usr/lib64/pgsql/"};
  std::vector<std::string> out;
  for (const char* d : dirs) {
    Digest h("sha256");
    std::string p = std::string(d) + original;
    h.update(p.data(), p.size());
    out.push_back(h.digest_hex());
  }
  return out;
}

// RECORD's urlsafe base64 digest as lower-case hex.
std::string b64url_to_hex(std::string_view b64) {
  std::string s(b64);
  for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (s.size() % 4) s += '=';
  std::string raw;
  if (!base64_decode(s, &raw)) return "";
  return hex_encode(raw);
}

// purl types of language ecosystems: a component of one is a package of that language, never the C
// library of the same name (cryptography's Rust crate `openssl` is not OpenSSL).
bool language_purl_type(std::string_view t) {
  static const std::set<std::string_view> langs = {"pypi",  "cargo",    "npm",       "gem",     "maven", "golang",
                                                   "nuget", "composer", "cocoapods", "swift",   "pub",   "hex",
                                                   "cran",  "hackage",  "cpan",      "luarocks"};
  return langs.count(t) > 0;
}

std::string purl_type(const std::string& purl) {
  Purl p;
  return parse_purl(purl, p) ? p.type : "";
}

// The upstream part of a distro version: "1:3.0.7-27.el9" -> "3.0.7", "1.1.1k-12.el8_9" -> "1.1.1k".
std::string upstream_version(std::string_view v) {
  if (auto colon = v.find(':'); colon != std::string_view::npos) v = v.substr(colon + 1);
  if (auto dash = v.find('-'); dash != std::string_view::npos) v = v.substr(0, dash);
  if (auto plus = v.find('+'); plus != std::string_view::npos) v = v.substr(0, plus);
  if (auto tilde = v.find('~'); tilde != std::string_view::npos) v = v.substr(0, tilde);
  return std::string(v);
}

// The version a library's file name carries: "libcrypto.so.1.1.1k" -> "1.1.1k", "libz.1.3.1.dylib"
// -> "1.3.1", "" when none.
}  // namespace

std::string file_name_version(std::string_view original) {
  if (auto so = original.find(".so."); so != std::string_view::npos) return std::string(original.substr(so + 4));
  if (original.ends_with(".dylib")) {
    std::string_view s = original.substr(0, original.size() - 6);
    auto dot = s.find('.');
    if (dot != std::string_view::npos) return std::string(s.substr(dot + 1));
  }
  return "";
}

namespace {

// Whether `file` ("1.1", "3.0.7", "1.1.1k") is a prefix, by dotted parts, of the component's upstream version.
bool version_agrees(const std::string& file, const std::string& component) {
  const std::string upstream = upstream_version(component);  // owns what `b` views (a temporary did not)
  auto a = split(file, '.');
  auto b = split(upstream, '.');
  if (a.size() > b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// The dotted numeric start of a version a binary says: "1.3.1.zlib-ng" -> "1.3.1", "8.5.0-DEV" ->
// "8.5.0"; OpenSSL's letter releases ("1.1.1k") stay whole.
std::string numeric_version(std::string_view v) {
  v = v.substr(0, v.find('-'));
  std::string out;
  for (auto part : split(v, '.')) {
    size_t digits = part.find_first_not_of("0123456789");
    bool ok = digits != 0 && (digits == std::string_view::npos ||
                              (digits + 1 == part.size() && part[digits] >= 'a' && part[digits] <= 'z'));
    if (!ok) break;
    out += (out.empty() ? "" : ".") + std::string(part);
  }
  return out;
}

std::string component_label(const SbomComponent& c) {
  std::string s = c.name.empty() ? c.ref : c.name;
  if (!c.version.empty()) s += " " + c.version;
  return clip_for_display(s, 100);
}

// Files of embedded wheels and sdists (virtualenv's seed wheels) are not this wheel's.
bool inside_embedded_archive(std::string_view p) {
  return p.find(".whl/") != std::string_view::npos || p.find(".tar.gz/") != std::string_view::npos ||
         p.find(".zip/") != std::string_view::npos;
}

// A file entry of a component nested in another distribution (virtualenv lists the files of the pip
// wheel it embeds under that wheel's component): its path is inside that archive, not this wheel.
bool inside_other_distribution(const SbomDocument& d, size_t i, const std::string& project) {
  if (inside_embedded_archive(d.components[i].ref)) return true;
  for (int p = d.components[i].parent, hops = 0; p >= 0 && hops < 64; p = d.components[p].parent, ++hops) {
    const SbomComponent& c = d.components[p];
    if (p == d.primary) return false;
    Purl pu;
    if (inside_embedded_archive(c.ref + "/") || c.ref.ends_with(".whl") ||
        (parse_purl(c.purl, pu) && pu.type == "pypi" && canonicalize_name(pu.name) != project))
      return true;
  }
  return false;
}

// A location the wheel itself would hold: relative, not inside an embedded archive.
bool wheel_relative(std::string_view p) {
  return !p.empty() && p.front() != '/' && p.find("://") == std::string_view::npos && !inside_embedded_archive(p) &&
         !(p.size() > 2 && p[1] == ':');
}

std::string listed(const std::vector<std::string>& xs, size_t shown = 3) { return join_shown(xs, shown); }

// The names of Python distributions the archive may hold, canonical: each path component, and its
// start up to the first '.' and the first '-' (an import package or module, a vendored copy, an
// embedded wheel or sdist, a dist-info). Built once a wheel: a document may name 200,000 components.
std::unordered_set<std::string> projects_in_archive(const WheelFacts& f) {
  std::unordered_set<std::string> out;
  for (const auto& e : f.entries)
    for (auto part : split(e.name, '/')) {
      if (part.empty()) continue;
      for (auto token : {part, part.substr(0, part.find('.')), part.substr(0, part.find('-'))})
        if (!token.empty()) out.insert(canonicalize_name(token));
    }
  return out;
}

// Why the document's primary component is not this package ("" when it is): PEP 770 asks for
// pkg:pypi/<name>@<version>; the package described from its own sources (maturin's
// pkg:cargo/orjson@3.13.0 in orjson 3.13.0) is the package too, and a version-less primary is allowed.
std::string primary_problem(const SbomDocument& d, const std::string& project, const std::string& metadata_version) {
  if (d.primary < 0) return "no primary component (the package itself)";
  const SbomComponent& pc = d.components[d.primary];
  Purl pu;
  if (pc.purl.empty() || !parse_purl(pc.purl, pu))
    return "the primary component '" + component_label(pc) + "' has no purl (pkg:pypi/" + project + ")";
  if (canonicalize_name(pu.name) != project)
    return "the primary component is " + clip_for_display(pc.purl, 100) + ", not this package (pkg:pypi/" + project +
           ")";
  if (!pu.version.empty() && !metadata_version.empty()) {
    auto a = parse_version(pu.version), b = parse_version(metadata_version);
    if (!(a && b && a->normalized() == b->normalized()) && pu.version != metadata_version)
      return "the primary component " + clip_for_display(pc.purl, 100) + " says version " +
             clip_for_display(pu.version, 40) + ", METADATA says " + metadata_version;
  }
  return "";
}

}  // namespace

std::vector<BundledLibrary> bundled_libraries(const WheelFacts& f) {
  std::vector<BundledLibrary> out;
  for (const auto& e : f.entries) {
    if (e.kind != EntryKind::file || !(is_native_library_name(e.name) || is_lettered_shared_library_name(e.name)))
      continue;
    std::string_view name = last_component(e.name);
    auto parts = split(e.name, '/');
    bool grafted_dir = false;
    for (size_t i = 0; i + 1 < parts.size(); ++i)
      if (parts[i] == ".dylibs" || parts[i] == ".libs" || (i == 0 && parts[i].ends_with(".libs"))) grafted_dir = true;
    auto [original, hash] = without_graft_hash(name);
    // A library grafted twice (scipy's libgfortran-040039e1-0352e75f.so.5.0.0, grafted into the
    // OpenBLAS wheel first) names what it is without either hash.
    std::string stem = original.substr(0, original.find('.'));
    for (auto again = without_graft_hash(stem); !again.second.empty(); again = without_graft_hash(stem))
      stem = again.first;
    if (ends_with_ci(original, ".dll")) stem = windows_dll_stem(stem);
    const KnownLibrary* k = known_library(stem);
    if (!grafted_dir && !k) continue;
    if (is_extension_module(f, e.name)) continue;
    BundledLibrary b;
    b.entry = e.name;
    b.original = original;
    b.graft_hash = hash;
    b.stem = stem;
    if (k) b.upstream = std::string(k->upstream), b.security = k->security;
    out.push_back(std::move(b));
  }
  return out;
}

size_t SbomCoverage::declared() const {
  return static_cast<size_t>(
      std::count_if(declared_by.begin(), declared_by.end(), [](const auto& d) { return d.has_value(); }));
}

std::vector<const BundledLibrary*> SbomCoverage::undeclared() const {
  std::vector<const BundledLibrary*> out;
  for (size_t i = 0; i < bundled.size(); ++i)
    if (!declared_by[i]) out.push_back(&bundled[i]);
  std::stable_sort(out.begin(), out.end(), [](const BundledLibrary* a, const BundledLibrary* b) {
    if (a->security != b->security) return a->security;
    return a->entry < b->entry;
  });
  return out;
}

SbomCoverage sbom_coverage(const WheelFacts& f) {
  SbomCoverage c;
  c.bundled = bundled_libraries(f);
  c.declared_by.resize(c.bundled.size());
  // Every way a component names a file, indexed once.
  std::unordered_map<std::string, SbomLink> by_ref_hash, by_location, by_file_hash, by_name;
  for (size_t di = 0; di < f.sboms.size(); ++di) {
    const SbomDocument& d = f.sboms[di];
    if (d.unknown()) {
      if (d.errors.empty()) ++c.unknown_documents;
      continue;
    }
    ++c.documents;
    c.components += d.component_count();
    for (size_t ci = 0; ci < d.components.size(); ++ci) {
      const SbomComponent& comp = d.components[ci];
      if (comp.is_file || static_cast<int>(ci) == d.primary) continue;
      SbomLink link{di, ci, ""};
      if (auto h = bom_ref_path_hash(comp.ref); !h.empty())
        by_ref_hash.emplace(h, SbomLink{di, ci, "bom-ref path hash"});
      for (const auto& l : comp.locations) by_location.emplace(l, SbomLink{di, ci, "location"});
      for (const auto& l : comp.contained) by_location.emplace(l, SbomLink{di, ci, "contained file"});
      for (const auto& h : comp.hashes)
        if (h.algorithm == "sha256") by_file_hash.emplace(h.hex, SbomLink{di, ci, "file hash"});
      // By name, never a language package's; "libjpeg / libjpeg-turbo" names both.
      if (!language_purl_type(purl_type(comp.purl)) && !comp.name.empty()) {
        by_name.emplace(to_lower(comp.name), SbomLink{di, ci, "name"});
        for (auto part : split(comp.name, '/'))
          if (auto t = trim(part); !t.empty()) by_name.emplace(to_lower(t), SbomLink{di, ci, "name"});
      }
    }
  }
  if (c.documents == 0) return c;
  // The exact links first (bom-ref path hash, location, file hash), then names for what is left.
  std::set<std::tuple<size_t, size_t, std::string>> exact_stems;  // (document, component, stem) linked exactly
  for (size_t i = 0; i < c.bundled.size(); ++i) {
    const BundledLibrary& b = c.bundled[i];
    auto& out = c.declared_by[i];
    if (!by_ref_hash.empty())
      for (const auto& h : source_path_hashes(b.original))
        if (auto it = by_ref_hash.find(h); it != by_ref_hash.end()) {
          out = it->second;
          break;
        }
    if (!out)
      if (auto it = by_location.find(b.entry); it != by_location.end()) out = it->second;
    if (!out)
      if (const EntryFacts* e = f.find_entry(b.entry); e && !e->sha256.empty())
        if (auto it = by_file_hash.find(b64url_to_hex(e->sha256)); it != by_file_hash.end()) out = it->second;
    if (out) exact_stems.insert({out->document, out->component, b.stem});
  }
  for (size_t i = 0; i < c.bundled.size(); ++i) {
    const BundledLibrary& b = c.bundled[i];
    auto& out = c.declared_by[i];
    if (out) continue;
    // By name: the stem, without "lib", without a trailing version ("libpng16"), the names distros
    // give the library.
    std::vector<std::string> names = {to_lower(b.stem), to_lower(b.original)};
    if (b.stem.starts_with("lib")) names.push_back(to_lower(b.stem.substr(3)));
    std::string bare = b.stem;
    while (!bare.empty() && is_digit(bare.back())) bare.pop_back();
    if (bare != b.stem && !bare.empty()) names.push_back(to_lower(bare));
    if (const KnownLibrary* k = known_library(b.stem))
      for (auto n : k->names) names.emplace_back(n);
    for (const auto& n : names)
      if (auto it = by_name.find(n); it != by_name.end()) {
        // A component linked exactly to another copy of this library (another graft hash: other
        // bytes) declares that copy's version, not this one's (scipy's libgfortran grafted twice).
        if (exact_stems.count({it->second.document, it->second.component, b.stem})) continue;
        out = it->second;
        break;
      }
  }
  return c;
}

nlohmann::json sbom_summary(const SbomCoverage& c) {
  nlohmann::json undeclared = nlohmann::json::array();
  for (const auto* b : c.undeclared()) undeclared.push_back(b->entry);
  nlohmann::json j = {{"documents", c.documents},
                      {"components", c.components},
                      {"bundled", c.bundled.size()},
                      {"declared", c.declared()},
                      {"undeclared", undeclared}};
  if (c.unknown_documents) j["unknown_documents"] = c.unknown_documents;
  return j;
}

std::string sbom_summary_line(const nlohmann::json& j) {
  if (!j.is_object()) return "";
  const uint64_t documents = j.value("documents", uint64_t{0}), components = j.value("components", uint64_t{0}),
                 bundled = j.value("bundled", uint64_t{0}), declared = j.value("declared", uint64_t{0}),
                 unknown = j.value("unknown_documents", uint64_t{0});
  if (documents == 0 && unknown == 0) return "";  // the wheel's note says what bundled libraries go undeclared
  auto plural = [](uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string s = "SBOM: ";
  s += plural(documents, "document", "documents") + ", " + plural(components, "component", "components");
  if (unknown) s += " (+" + std::to_string(unknown) + " in a format not read)";
  if (bundled)
    s += "; declared " + std::to_string(declared) + " of " + plural(bundled, "bundled library", "bundled libraries");
  std::vector<std::string> names;
  if (j.contains("undeclared") && j["undeclared"].is_array())
    for (const auto& u : j["undeclared"])
      if (u.is_string()) names.push_back(std::string(last_component(u.get<std::string>())));
  if (!names.empty() && documents) s += " (undeclared: " + listed(names) + ")";
  return s;
}

void sbom_rules(const WheelFacts& f, FindingSink& s) {
  const Policy& p = s.policy();
  if (f.sboms_not_read)
    s.add("WC901",
          std::to_string(f.sboms_not_read) + " more files in sboms/ than the " + std::to_string(f.sboms.size()) +
              " read; not read",
          f.dist_info + "/sboms/");
  const std::string metadata_version = f.metadata ? f.metadata->get("Version").value_or("") : "";
  const std::string wheel_file = std::string(last_component(f.filename.raw.empty() ? f.path : f.filename.raw));
  // One document whose primary is this package is enough: the others may describe parts of it
  // (maturin's cargo SBOM describes the Rust crate inside).
  const bool some_primary_is_package = std::any_of(f.sboms.begin(), f.sboms.end(), [&](const SbomDocument& d) {
    return !d.unknown() && primary_problem(d, f.filename.canonical_name, metadata_version).empty();
  });
  std::optional<std::unordered_set<std::string>> projects;
  auto in_archive = [&]() -> const std::unordered_set<std::string>& {
    if (!projects) projects = projects_in_archive(f);
    return *projects;
  };
  for (const SbomDocument& d : f.sboms) {
    // WC901: what the format requires.
    if (!d.errors.empty())
      s.add("WC901", (d.format.empty() ? std::string() : d.format + " " + d.spec_version + ": ") + listed(d.errors, 3),
            d.entry);
    if (!d.warnings.empty()) s.add("WC901", listed(d.warnings, 3), d.entry, std::nullopt, Severity::warning);
    if (d.unknown()) continue;  // an unknown standard is a note (the summary), never a finding
    // WC902: PEP 770's SHOULDs.
    std::vector<std::string> lacks;
    // A creation time is asked for, but auditwheel leaves it out on purpose (identical builds, WC905):
    // a document that names its tool is traceable without one.
    if (!d.has_created && !d.has_tool)
      lacks.push_back("no creation time and no tool");
    else if (!d.has_tool)
      lacks.push_back("no tool");
    if (std::string why = primary_problem(d, f.filename.canonical_name, metadata_version);
        !why.empty() && (!some_primary_is_package || why.find("METADATA says") != std::string::npos))
      lacks.push_back(why);
    std::vector<std::string> no_version, no_id;
    size_t components = 0;
    for (size_t i = 0; i < d.components.size(); ++i) {
      const SbomComponent& c = d.components[i];
      if (c.is_file || static_cast<int>(i) == d.primary) continue;
      ++components;
      if (c.version.empty()) no_version.push_back(component_label(c));
      if (!c.identified()) no_id.push_back(component_label(c));
    }
    if (!no_version.empty())
      lacks.push_back(std::to_string(no_version.size()) + " of " + std::to_string(components) +
                      " components have no version (" + listed(no_version) + ")");
    if (!no_id.empty())
      lacks.push_back(std::to_string(no_id.size()) + " of " + std::to_string(components) +
                      " components have no purl, CPE or download URL (" + listed(no_id) + ")");
    if (d.primary >= 0 && components) {
      std::vector<std::vector<size_t>> out(d.components.size());
      for (const auto& [a, b] : d.edges) out[a].push_back(b);
      std::vector<char> seen(d.components.size(), 0);
      std::vector<size_t> stack = {static_cast<size_t>(d.primary)};
      seen[d.primary] = 1;
      while (!stack.empty()) {
        size_t x = stack.back();
        stack.pop_back();
        for (size_t y : out[x])
          if (!seen[y]) seen[y] = 1, stack.push_back(y);
      }
      std::vector<std::string> unreachable;
      for (size_t i = 0; i < d.components.size(); ++i)
        if (!seen[i] && !d.components[i].is_file) unreachable.push_back(component_label(d.components[i]));
      if (!unreachable.empty())
        lacks.push_back(std::to_string(unreachable.size()) + " of " + std::to_string(components) +
                        " components are not reachable from the primary (" + listed(unreachable) + ")");
    }
    if (!lacks.empty()) s.add("WC902", listed(lacks, 6), d.entry);

    // WC904: claims the wheel contradicts. A component's hashes are compared with its own files
    // only (a package's checksum is its archive's, not the files it contains); the first few
    // differences are findings, the rest a count.
    std::vector<std::string> absent;
    size_t mismatches = 0;
    std::string first_mismatch;
    for (size_t i = 0; i < d.components.size(); ++i) {
      const SbomComponent& c = d.components[i];
      if (c.excluded || inside_other_distribution(d, i, f.filename.canonical_name)) continue;
      for (const auto& loc : c.locations) {
        if (!wheel_relative(loc)) continue;
        const EntryFacts* e = f.find_entry(loc);
        if (!e) {
          if (!f.metadata_depth) absent.push_back(clip_for_display(loc, 100));
          continue;
        }
        for (const auto& h : c.hashes) {
          std::string have;
          if (h.algorithm == "sha256")
            have = e->sha256;
          else if (auto it = e->other_digests.find(h.algorithm); it != e->other_digests.end())
            have = it->second;
          if (have.empty()) continue;
          std::string hex = b64url_to_hex(have);
          if (hex.empty() || hex == h.hex) continue;
          if (mismatches++ < kMaxHashFindings)
            s.add("WC904",
                  d.entry + ": " + component_label(c) + " gives " + h.algorithm + " " + h.hex.substr(0, 16) +
                      "... for " + loc + "; the file's is " + hex.substr(0, 16) + "...",
                  loc);
          else if (first_mismatch.empty())
            first_mismatch = loc;
        }
      }
      Purl pu;
      if (!c.purl.empty() && parse_purl(c.purl, pu)) {
        // file_name= names the file of the package the purl names: this wheel's only when the purl
        // is this project's (a virtualenv SBOM's embedded pip wheel has its own file name).
        std::string fn = pu.qualifier("file_name");
        const bool this_project =
            static_cast<int>(i) == d.primary || canonicalize_name(pu.name) == f.filename.canonical_name;
        if (!fn.empty() && pu.type == "pypi" && this_project && fn != wheel_file)
          s.add("WC904",
                component_label(c) + ": the purl's file_name=" + clip_for_display(fn, 120) + ", but this wheel is " +
                    wheel_file + " (renamed or retagged after the SBOM was written)",
                d.entry);
        if (pu.type == "pypi" && static_cast<int>(i) != d.primary && !c.is_file &&
            canonicalize_name(pu.name) != f.filename.canonical_name && !f.metadata_depth &&
            !in_archive().count(canonicalize_name(pu.name)))
          absent.push_back(clip_for_display(c.purl, 100) + " (no such package in the archive)");
      }
    }
    if (mismatches > kMaxHashFindings)
      s.add("WC904",
            d.entry + ": " + std::to_string(mismatches - kMaxHashFindings) +
                " more hashes differ from the files they name (not listed one by one)",
            first_mismatch);
    if (!absent.empty())
      s.add("WC904",
            "names what the archive does not contain (" + std::to_string(absent.size()) + "): " + listed(absent),
            d.entry, std::nullopt, Severity::warning);

    // WC905: reproducibility.
    if (d.build_path_count)
      s.add("WC905", "absolute build paths (" + std::to_string(d.build_path_count) + "): " + listed(d.build_paths, 2),
            d.entry);
    if (p.sbom.forbid_random_serial && d.serial.size() == 45 && d.serial[23] == '4')
      s.add("WC905", "a random serial number (UUID version 4: " + d.serial + ") makes identical builds differ",
            d.entry);
  }

  // WC903 and the versions of what is declared (WC904), over all documents.
  SbomCoverage c = sbom_coverage(f);
  for (size_t i = 0; i < c.bundled.size(); ++i) {
    const auto& link = c.declared_by[i];
    if (!link) continue;
    const BundledLibrary& b = c.bundled[i];
    const SbomComponent& comp = f.sboms[link->document].components[link->component];
    if (comp.version.empty()) continue;
    // What the binary says in its bytes first (any of its version strings: zlib-ng carries two),
    // then what its file name says, for the libraries whose file names carry the upstream version.
    // zlib-ng's compat build says zlib's API version ("1.3.1.zlib-ng", libz.so.1.3.1.zlib-ng) while
    // an SBOM rightly gives zlib-ng's own (2.2.x): neither contradicts the other.
    const EntryFacts* e = f.find_entry(b.entry);
    auto zlib_ng = [](std::string_view v) { return to_lower(v).find("zlib-ng") != std::string::npos; };
    if (zlib_ng(comp.name) || zlib_ng(b.original) ||
        (e && std::any_of(e->version_strings.begin(), e->version_strings.end(), zlib_ng)))
      continue;
    if (e && !e->version_strings.empty()) {
      bool agrees = false;
      for (const auto& v : e->version_strings) {
        std::string n = numeric_version(v);
        agrees = agrees ||
                 (!n.empty() && (version_agrees(n, comp.version) || version_agrees(upstream_version(comp.version), n)));
      }
      if (!agrees)
        s.add("WC904",
              f.sboms[link->document].entry + ": " + component_label(comp) + " declares " + b.entry +
                  ", which says it is " + (b.upstream.empty() ? b.stem : b.upstream) + " " +
                  join(e->version_strings, " / "),
              b.entry);
      continue;
    }
    const KnownLibrary* k = known_library(b.stem);
    std::string fv = file_name_version(b.original);
    if (k && k->file_version_is_upstream && !fv.empty() && !version_agrees(fv, comp.version))
      s.add("WC904",
            f.sboms[link->document].entry + ": " + component_label(comp) + " declares " + b.entry +
                ", whose file name says " + b.upstream + " " + fv,
            b.entry);
  }
  if (c.bundled.empty()) return;
  auto und = c.undeclared();
  if (und.empty()) return;
  std::vector<std::string> names;
  for (const auto* b : und) names.push_back(b->entry + (b->upstream.empty() ? "" : " (" + b->upstream + ")"));
  if (c.documents == 0) {
    if (p.sbom.require && c.unknown_documents == 0)
      s.add("WC903",
            "no SBOM in " + f.dist_info + "/sboms/ declares its " + std::to_string(c.bundled.size()) +
                " bundled librar" + (c.bundled.size() == 1 ? "y" : "ies") + " (sbom.require): " + listed(names),
            und.front()->entry, std::nullopt, Severity::error);
    return;
  }
  s.add("WC903",
        "declared " + std::to_string(c.declared()) + " of " + std::to_string(c.bundled.size()) +
            " bundled libraries; undeclared: " + listed(names, 5),
        und.front()->entry, std::nullopt, p.sbom.require_coverage ? Severity::error : Severity::warning);
}

}  // namespace wc
