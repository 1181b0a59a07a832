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
// The file name of an entry path: what follows the last '/'.
std::string_view last_component(std::string_view name);

// `.so`, `.so.N[.M...]`, `.pyd`, `.dylib`, `.dll` (any case).
bool is_native_library_name(std::string_view name);

struct ExtensionSuffix {
  std::string abi;                // "cp312", "cp313t"; "abi3" for `.abi3.so`; "" for a plain `.so`/`.pyd`
  bool python_extension = false;  // the suffix is one CPython imports modules from
};
// The interpreter an extension module's suffix names, when it names one.
std::optional<ExtensionSuffix> extension_suffix(std::string_view name);

}  // namespace wc
