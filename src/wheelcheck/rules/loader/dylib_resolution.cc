#include "rules/loader/dylib_resolution.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "rules/loader/resolution.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"

namespace wc {
namespace {

std::string dir_of(const std::string& p) { return std::string(parent_dir(p)); }

// `rest` (an install name's tail) from the folder `from`; nullopt when it climbs out of the tree.
std::optional<std::string> relative_to(const std::string& from, const std::string& rest) {
  std::vector<std::string> out;
  const std::string path = from + "/" + rest;  // split() returns views into it: keep it alive
  for (auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (out.empty()) return std::nullopt;
      out.pop_back();
    } else {
      out.emplace_back(part);
    }
  }
  return join(out, "/");
}

const std::set<std::string, std::less<>> kUsrLib = {
    "libz.1.dylib",       "libc++.1.dylib",   "libc++abi.dylib",      "libSystem.B.dylib", "libobjc.A.dylib",
    "libiconv.2.dylib",   "libbz2.1.0.dylib", "libexpat.1.dylib",     "libsqlite3.dylib",  "libxml2.2.dylib",
    "libcurl.4.dylib",    "libffi.dylib",     "libncurses.5.4.dylib", "libedit.3.dylib",   "libresolv.9.dylib",
    "libcharset.1.dylib", "liblzma.5.dylib"};

class Finder {
 public:
  Finder(const WheelFacts& f, const BinaryFacts& b, const MachOSlice& sl, const InstallSet& set, const Policy& p)
      : f_(f), b_(b), sl_(sl), set_(set), p_(p) {}

  DylibFound at(const std::string& path) const {
    for (const auto* w : set_.wheels)
      if (w->installs(path)) return {DylibFound::Where::run, w, binary_at(*w, path)};
    return {};
  }
  // Through the LC_RPATHs of a binary installed in `from` (@loader_path and @executable_path alike:
  // an extension's loader is the interpreter, so only @loader_path ones can reach the wheel).
  DylibFound through_rpaths(const std::vector<std::string>& rpaths, const std::string& from,
                            const std::string& leaf) const {
    for (size_t i = 0; i < rpaths.size(); ++i) {
      std::string_view rest = rpaths[i];
      if (!consume(rest, "@loader_path")) continue;
      auto base = relative_to(from, std::string(rest));
      if (!base) continue;
      if (auto found = at(*base + (base->empty() ? "" : "/") + leaf); found.where == DylibFound::Where::run) {
        found.rpaths_searched = i + 1;
        return found;
      }
    }
    return {};
  }
  // An image already in the process under that install name: one an imported project's import
  // loaded (torch's libraries), or one a package's own Python loads by path before what needs it
  // (torchaudio's lib/libtorchaudio.so, @rpath/libtorchaudio.so to its _torchaudio.so).
  DylibFound loaded_image(const std::string& name) const {
    for (const auto* w : set_.wheels) {
      const bool imported = import_loaded(*w, p_.cuda);
      for (const auto& other : w->binaries) {
        if (!imported && !python_loaded(*w, other)) continue;
        for (const auto& os : other.slices)
          if (os.arch == sl_.arch && os.install_name == name) return {DylibFound::Where::run, w, &other};
      }
    }
    return {};
  }
  // Binaries of the wheel whose dylibs name this one (by its file name): the loading chain.
  DylibFound through_loaders(const std::string& leaf) const {
    const std::string own_leaf(last_component(b_.path));
    for (const auto& other : f_.binaries) {
      if (&other == &b_ || other.format != "macho") continue;
      for (const auto& os : other.slices) {
        if (os.arch != sl_.arch) continue;
        bool loads_b = std::any_of(os.dylibs.begin(), os.dylibs.end(),
                                   [&](const std::string& d) { return last_component(d) == own_leaf; });
        if (!loads_b) continue;
        if (auto found = through_rpaths(os.rpaths, dir_of(install_path(other.path)), leaf);
            found.where == DylibFound::Where::run)
          return found;
      }
    }
    return {};
  }

 private:
  const WheelFacts& f_;
  const BinaryFacts& b_;
  const MachOSlice& sl_;
  const InstallSet& set_;
  const Policy& p_;
};

}  // namespace

DylibFound find_dylib(const WheelFacts& f, const BinaryFacts& b, const MachOSlice& sl, const std::string& d,
                      const InstallSet& set, const Policy& p, bool ios) {
  const auto& prefixes = p.macos.system_prefixes;
  if (std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& x) { return d.rfind(x, 0) == 0; }))
    return {DylibFound::Where::system};
  const auto& host = p.macos.ios_host_provided;
  if (ios && std::find(host.begin(), host.end(), d) != host.end()) return {DylibFound::Where::system};
  Finder finder(f, b, sl, set, p);
  const std::string dir = dir_of(install_path(b.path));
  if (d.rfind("@loader_path/", 0) == 0) {
    auto path = relative_to(dir, d.substr(13));
    return path ? finder.at(*path) : DylibFound{};
  }
  if (d.rfind("@rpath/", 0) != 0) return {};
  const std::string rest = d.substr(7);
  if (auto found = finder.loaded_image(d); found.where == DylibFound::Where::run) {
    found.already_loaded = true;
    return found;
  }
  if (auto found = finder.through_rpaths(sl.rpaths, dir, rest); found.where == DylibFound::Where::run) return found;
  DylibFound past;  // every LC_RPATH of the slice tried first
  if (auto found = finder.through_loaders(rest); found.where == DylibFound::Where::run)
    past = found;
  else if (rest.find('/') == std::string::npos && kUsrLib.count(rest))
    past.where = DylibFound::Where::system;
  past.rpaths_searched = sl.rpaths.size();
  return past;
}

}  // namespace wc
