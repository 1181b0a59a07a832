// What an archive entry's name says about it: native library names, and the CPython extension
// module suffixes (PEP 3149 `foo.cpython-312-x86_64-linux-gnu.so`, Windows `foo.cp312-win_amd64.pyd`,
// stable ABI `foo.abi3.so`). Linear scans; entry names are attacker-controlled.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wc {

// Where an entry lands in site-packages: `{name}.data/{purelib,platlib}/x` -> `x`, other entries as
// they are; "" for `.data/{scripts,headers,data}` (installed elsewhere, not on a library search path).
std::string install_path(std::string_view entry);
// The same as a view of `entry` (every such path is a part of it).
std::string_view install_path_view(std::string_view entry);
// Where an installer writes an entry (pip's and pypa/installer's rules): `{name}.data/{scheme}/x`
// goes to `x` in that scheme, anything else to `entry` in the root scheme (scheme ""). nullopt
// for a `.data` entry no installer places: a scheme other than purelib, platlib, headers, scripts,
// data, or a file directly under `{name}.data/` (pip and installer refuse the wheel).
template <typename S>
struct BasicInstallTarget {
  S scheme;  // "" (the root: purelib or platlib as WHEEL says), or the .data scheme
  S path;    // within the scheme
  bool library() const { return scheme.empty() || scheme == "purelib" || scheme == "platlib"; }
  // One namespace for all schemes: site-packages paths as they are (the path itself), the others
  // as `<scheme>/path`.
  std::string key() const {
    return library() ? std::string(path) : "<" + std::string(scheme) + ">/" + std::string(path);
  }
};
using InstallTarget = BasicInstallTarget<std::string>;
// The same as views of the entry name, for a rule that asks it of every entry without copying.
using InstallTargetView = BasicInstallTarget<std::string_view>;
std::optional<InstallTargetView> install_target_view(std::string_view entry);
std::optional<InstallTarget> install_target(std::string_view entry);
// A Python keyword (`def`, `with`, `None`...): no import statement can spell it as a name.
bool is_python_keyword(std::string_view name);
// A name an import statement can spell: an identifier (util/parse.h) that is not a keyword.
bool is_import_name(std::string_view name);

// The file name of an entry path: what follows the last '/'.
std::string_view last_component(std::string_view name);
// What precedes the last '/' ("" for a name with none).
std::string_view parent_dir(std::string_view name);

// `.so`, `.so.N[.M...]`, `.pyd`, `.dylib`, `.dll` (any case).
bool is_native_library_name(std::string_view name);
// A shared library whose version ends in a release letter, as OpenSSL 1.1.1's do ("libcrypto.so.1.1.1k"):
// not taken for a native library where the name alone decides (is_native_library_name), but the
// SBOM rules and the version scan know these grafts.
bool is_lettered_shared_library_name(std::string_view name);

struct ExtensionSuffix {
  std::string abi;                // "cp312", "cp313t"; "abi3" for `.abi3.so`; "" for a plain `.so`/`.pyd`
  bool python_extension = false;  // the suffix is one CPython imports modules from
};
// The interpreter an extension module's suffix names, when it names one.
std::optional<ExtensionSuffix> extension_suffix(std::string_view name);

}  // namespace wc
