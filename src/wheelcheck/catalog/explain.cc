#include "catalog/catalog.h"

#include <vector>

namespace wc {

// A table, not logic: what `wheelcheck rules ID` prints for each rule. `fix` says how to repair the
// wheel; waiving is the same for every rule and is said by the printer.
std::span<const RuleHelp> wheelcheck_rule_help() {
  static const std::vector<RuleHelp> help = {
      {"WC101",
       "The file name splits into {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl (a PEP 825 variant label "
       "may follow), the name is escaped, the version is PEP 440, the build tag starts with a digit, no member of a "
       "compressed tag set is empty and every interpreter tag is an identifier (py3, cp312; not 2.7.6 or py+3).",
       "pip and uv pick wheels by their file name alone; a name they cannot parse is never installed, and PyPI "
       "refuses the upload.",
       "Let the build backend name the wheel (python -m build, pip wheel); do not rename wheels by hand.",
       "error   WC101  file name 'demo-1.0-py3.whl': expected 5 to 7 dash-separated parts"},
      {"WC102", "Exactly one {name}-{version}.dist-info directory, named after the file name's project and version.",
       "Installers read METADATA, WHEEL and RECORD from there; a missing or second dist-info makes the install fail "
       "or take the wrong metadata.",
       "Rebuild from a clean tree; remove stale *.dist-info folders from the build directory.",
       "error   WC102  two dist-info directories: demo-1.0.dist-info, demo-0.9.dist-info"},
      {"WC103", "The Tag: lines of WHEEL equal the tag set the file name expands to (compressed tag sets included).",
       "Tools that trust WHEEL (auditwheel, installers checking compatibility) and those that trust the name "
       "disagree about where the wheel may be installed.",
       "Retag consistently: `wheel tags --platform-tag ...` rewrites both; auditwheel repair does too.",
       "error   WC103  WHEEL Tag set {cp312-cp312-linux_x86_64} differs from the file name's "
       "{cp312-cp312-manylinux_2_17_x86_64}"},
      {"WC104", "WHEEL has Wheel-Version (major 1), Generator, Root-Is-Purelib (true or false) and at least one Tag.",
       "An installer refuses a Wheel-Version it does not know and installs purelib/platlib by Root-Is-Purelib.",
       "Use a current build backend; fix the WHEEL file it writes rather than the archive.",
       "error   WC104  demo-1.0.dist-info/WHEEL: Root-Is-Purelib is 'yes' (expected true or false)"},
      {"WC105",
       "The python, abi and platform tags agree with each other and with the contents (an abi3 tag on a cpXY, native "
       "code in a py3-none-any wheel, an extension suffix for another Python).",
       "A wheel that says pure Python but carries a compiled module is installed where it cannot import.",
       "Build platform wheels with the platform's tags (bdist_wheel --plat-name, or the backend's settings).",
       "error   WC105  demo/_ext.cpython-312-x86_64-linux-gnu.so: an extension module in a wheel tagged py3-none-any"},
      {"WC106",
       "Every platform tag is a valid one PyPI accepts (manylinux/musllinux with a glibc/musl version, any glibc "
       "major from 2 (PEP 600), macOS, Windows, iOS, Android, Emscripten, and linux_armv6l/linux_armv7l, which "
       "PyPI's list allows).",
       "PyPI rejects linux_x86_64 and the other linux_* tags, and malformed tags; installers never match them.",
       "Run auditwheel repair (Linux), delocate (macOS) or set the tag the binaries justify.",
       "error   WC106  platform tag 'linux_x86_64' is not accepted by PyPI"},
      {"WC107", "File name parts in normal form: lower-case escaped name, normalised version, lower-case tags.",
       "Other tools build the expected name from the normalised parts; a mismatch breaks caches and lookups.",
       "Upgrade the build backend (setuptools >= 75.8 normalises names).",
       "warning WC107  project part 'Demo_Pkg' is not normalised (expected 'demo_pkg')"},
      {"WC108", "A local version label (+cu128) in the file name (off by default; on in the pypi policy).",
       "PyPI refuses uploads with local versions; a private index accepts them.", "Drop the +label for PyPI uploads.",
       "error   WC108  version '2.15.0+cu132' has a local label: PyPI rejects it"},
      {"WC201", "METADATA's Name and Version equal the file name's (after normalisation).",
       "pip resolves by the file name and installs METADATA's claims: a mismatch installs another version than "
       "the one resolved.",
       "Rebuild; never edit METADATA or rename the file after the build.",
       "error   WC201  METADATA Version 1.0.1 differs from the file name's 1.0"},
      {"WC202", "METADATA parses as core metadata with Metadata-Version, Name and Version and well-formed fields.",
       "PyPI rejects malformed metadata; installers may read it differently.",
       "Use a build backend that writes Metadata-Version 2.1 or later.",
       "error   WC202  METADATA: Metadata-Version missing"},
      {"WC203", "Requires-Python admits the Python the wheel is tagged for.",
       "pip skips the wheel on the very interpreter it was built for.",
       "Fix requires-python in pyproject.toml or build for the Pythons it admits.",
       "error   WC203  Requires-Python '>=3.13' excludes the wheel's python tag cp312"},
      {"WC204", "Requires-Dist pins on CUDA wheels (nvidia-*-cuXY, cuda-toolkit) agree with the wheel's CUDA variant.",
       "A cu128 wheel that pulls cu126 libraries loads the wrong runtime or none.",
       "Generate the pins from the same CUDA version the build used.",
       "error   WC204  Requires-Dist nvidia-cublas-cu12==12.6.4.1 disagrees with the variant cu128"},
      {"WC205",
       "METADATA passes the checks PyPI's upload adds to the specification (warehouse forklift/metadata.py and "
       "packaging.metadata): License-Expression a valid SPDX expression and not beside License; License-File "
       "relative '/' paths without '..' or globs, present under .dist-info/licenses/; known, non-deprecated trove "
       "classifiers; Summary of 512 characters at most; Author-email/Maintainer-email addresses; Home-page, "
       "Download-URL and Project-URL http(s) URLs with labels of 32 characters at most; no direct URL in "
       "Requires-Dist; Dynamic naming core metadata fields; PEP 794 Import-Name/Import-Namespace valid, disjoint, "
       "importable from the wheel and not claimed by another project of the install set. Off by default; an error "
       "in the pypi policy, a warning in strict.",
       "PyPI refuses the upload at the last step of a release, after the wheels are built and tagged.",
       "Fix the project table in pyproject.toml (license = \"MIT\", license-files, classifiers, urls) and rebuild.",
       "error   WC205  demo-1.0.dist-info/METADATA: License-Expression 'MIT OR Apache' is not a valid SPDX "
       "expression (SPDX list 3.27.0): Unknown license: 'apache'"},
      {"WC208", "entry_points.txt is UTF-8 INI with 'name = module:object' lines; script names match [\\w.-]+.",
       "PyPI refuses the upload; pip fails to create the scripts.", "Fix [project.scripts] in pyproject.toml.",
       "error   WC208  entry_points.txt line 3: 'demo cli = demo:main' (a script name with a space)"},
      {"WC209", ".pth files with 'import' lines run code at every interpreter start-up.",
       "They slow every start and are a common persistence trick; Python plans to stop running them (PEP 829).",
       "Use an entry point or an explicit import instead.",
       "warning WC209  demo.pth: line 1 starts with 'import' (runs at every start-up)"},
      {"WC210", "RECORD.jws or RECORD.p7s signatures (PEP 815 deprecates them; no installer checks them).",
       "They promise a verification nobody performs.", "Remove them; sign with Sigstore attestations on upload.",
       "warning WC210  demo-1.0.dist-info/RECORD.jws: wheel signatures are deprecated (PEP 815)"},
      {"WC211",
       "Every Python module in site-packages sits at a path import can reach: each directory and the name the "
       "file binds (has-hyphen.py, extra.ext.py bind none) are identifiers and no keywords (check-wheel-contents "
       "W004). Off by default (files run by path, such as PyInstaller "
       "hooks, are common in real wheels); a warning in strict.",
       "A module nobody can import is dead code, or a package directory misnamed (my-pkg/ instead of my_pkg/).",
       "Rename the directory or module to an identifier, or move scripts out of the package.",
       "warning WC211  mypkg/my-scripts/run.py: 2 Python modules at paths import cannot reach"},
      {"WC212",
       "site-packages receives one top-level package or module (check-wheel-contents W009); auditwheel's pkg.libs/ "
       "is not counted. Off by default: many well-known wheels ship a helper module beside their package.",
       "Stray top-level names (tests, docs, utils) clash with other projects' files and overwrite them on install.",
       "Move helpers under the package, or exclude stray directories from the build.",
       "warning WC212  2 top-level names in site-packages (mypkg, tests)"},
      {"WC213",
       "Each top-level directory in site-packages holds a Python module or a native library somewhere below it "
       "(check-wheel-contents W010); .pyi stubs alone do not count, except in a PEP 561 {name}-stubs directory.",
       "A data-only top-level directory (include/, share/, docs/) lands in site-packages under a generic name that "
       "other projects use too.",
       "Put data inside the package (package data), or under {name}.data/data/ for install-scheme data.",
       "warning WC213  include/: top-level directory in site-packages with no Python module or library"},
      {"WC214",
       "No two files of the wheel have the same bytes (check-wheel-contents W002); empty files, a bare line break "
       "and a coding line are exempt, and so are .dist-info directories (PEP 639 license copies). Off, in strict "
       "too: on 84 real wheels it fired on 23, none a defect (time-zone aliases in pytz and tzdata, license-header "
       "__init__.py files, identical .pyi stubs, setuptools' cli.exe and cli-32.exe).",
       "A second copy is usually a build mistake: the package collected twice (src/pkg and pkg), build/ leftovers, "
       "or a file copied where an import would do.",
       "Exclude the stray copy from the build; import or symlink at build time instead of shipping copies.",
       "warning WC214  pkg/util.py: 2 files with the same content: pkg/util.py, pkg/old/util.py"},
      {"WC215",
       "Every file at the top of site-packages is a module (.py, .so, .pyd) or a .pth file "
       "(check-wheel-contents W003). Off by default, a warning in strict.",
       "A README, LICENSE or stub at the top of site-packages belongs to no package: it clashes with other "
       "projects' files of that name and nothing imports it (PEP 561 puts stubs inside packages).",
       "Move the file inside the package, or into the dist-info (license files) or {name}.data/data/.",
       "warning WC215  README.md: 1 file at the top of site-packages that no import reaches"},
      {"WC216",
       "No top-level name in site-packages is one a source tree uses for other things: .eggs, .nox, .tox, .venv, app, "
       "build, cli, data, dist, doc, docs, example, examples, lib, scripts, src, test, tests, venv "
       "(check-wheel-contents W005). Off by default, a warning in strict.",
       "Such a directory was packaged by mistake (find_packages() picking up tests/, a build/ tree), and every "
       "project making the same mistake overwrites the others' files.",
       "Exclude it from the build (find_packages(exclude=...), tool.setuptools.packages.find), or move it into the "
       "package.",
       "warning WC216  tests/__init__.py: common top-level name in site-packages: tests/"},
      {"WC217",
       "site-packages receives no top-level __init__.py (check-wheel-contents W006). Off by default, a warning in "
       "strict.",
       "It means the wheel was built with the package directory as its root: the modules install as top-level "
       "modules, and the package itself is missing.",
       "Build from the project root, with the package directory inside it.",
       "warning WC217  __init__.py: __init__.py at the top of site-packages"},
      {"WC218",
       "The wheel installs something into site-packages (check-wheel-contents W007), and holds something beside its "
       "dist-info (W008). A metapackage (no files, only Requires-Dist) is exempt. Off by default, a warning in strict.",
       "A wheel with no library files installs no importable code: usually a packaging configuration that found no "
       "packages.",
       "Check the build backend's package discovery (packages, py-modules, package-dir).",
       "warning WC218  the wheel is empty: no file beside its dist-info"},
      {"WC301",
       "RECORD exists and is CSV of path,hash,size rows, and does not list the signature files RECORD.jws and "
       "RECORD.p7s (pypa/installer refuses the wheel if it does). A backslash in a row's path reads as '/', as "
       "installer reads it.",
       "Installers verify files and uninstall by RECORD; without it the wheel cannot be verified or removed.",
       "Rebuild; tools that modify wheels (auditwheel, delocate) rewrite RECORD for you.",
       "error   WC301  demo-1.0.dist-info/RECORD is missing"},
      {"WC302", "Each file's hash equals its RECORD row.",
       "pip refuses the install; a mismatch also means the file changed after the build (tampering or a broken "
       "repair step).",
       "Regenerate RECORD after modifying the wheel (wheel pack, or the repair tool's own output).",
       "error   WC302  demo/__init__.py: sha256 differs from RECORD"},
      {"WC303", "Each file's size equals its RECORD row.", "As WC302: pip verifies sizes too.",
       "Regenerate RECORD after modifying the wheel.", "error   WC303  bad/__init__.py: size is 12, RECORD says 9"},
      {"WC304", "Every archive entry (but RECORD itself and its signatures) is listed in RECORD.",
       "Unlisted files are installed but never verified or uninstalled.", "Regenerate RECORD.",
       "error   WC304  demo/extra.py: not listed in RECORD"},
      {"WC305", "Every RECORD row names a file in the archive.",
       "Uninstallers and verifiers look for files that are not there.", "Regenerate RECORD.",
       "error   WC305  demo/gone.py: listed in RECORD, not in the archive"},
      {"WC306", "RECORD hashes use sha256 or stronger (sha384, sha512); every file but RECORD has one.",
       "md5 and sha1 hashes do not protect the contents; pip refuses weak algorithms.",
       "Use a current build backend (sha256).", "error   WC306  demo/__init__.py: RECORD hash uses md5"},
      {"WC307", "Entry names are unique (also after Unicode normalisation and on case-insensitive file systems).",
       "Two entries of one name install whichever comes last: what was reviewed is not what runs.",
       "Rebuild from a clean tree.", "error   WC307  demo/__init__.py appears twice"},
      {"WC401",
       "Entry paths are relative, without '..', backslashes, drive letters, NUL or control characters, valid UTF-8, "
       "not over-long; no character Python's str.splitlines() breaks on (\\r, \\v, \\f, \\x1c-\\x1e, U+0085, "
       "U+2028, U+2029); a non-ASCII name carries the UTF-8 flag (zipfile reads it as cp437 otherwise) and decodes to "
       "no other entry's name; no two entries install to one path, and no path is both a file and a directory. "
       "Components Windows collapses (a trailing dot or space, ':' for an NTFS alternate data stream, device names "
       "CON, PRN, AUX, NUL, COM1-9, LPT1-9 with any extension) are errors for wheels that install on Windows "
       "(win_* or any platform) and warnings elsewhere; names equal but for case are errors for wheels that install "
       "on Windows or macOS (win_*, macosx_* or any), whose file systems fold case, and warnings elsewhere.",
       "An unsafe path writes outside site-packages when extracted (zip-slip). pip reads RECORD line by line with "
       "str.splitlines(), so a name holding any of its line breaks injects a RECORD row (pip uninstall then deletes "
       "the path it names). A name that decodes or folds onto another's, or a path that is a file and a directory, "
       "installs one entry's bytes where RECORD verified another's, or fails half-way. On Windows 'x.' and 'x' are "
       "one file, 'a.py:evil' is a stream of a.py and aux.py opens a device: what was checked is not what lands.",
       "Never build archives by hand from untrusted names; rename the files that collide or that Windows cannot "
       "hold.",
       "error   WC401  ../../etc/profile.d/x.sh: path escapes"},
      {"WC402", "Every entry is a regular file or directory (no symlinks, devices, FIFOs).",
       "Installers handle symlinks differently (pip writes them as files); a symlink can point outside the tree.",
       "Ship the file itself, or load the library by its real name.",
       "error   WC402  demo/lib.so: symlink entry (pip installs its target path as a file)"},
      {"WC403",
       "Decompression stays under the policy's limits: the whole wheel's ratio (PyPI's rule: over 64 MiB "
       "inflated, at most 50 times the file), total size, entry count; and the analysis of one "
       "wheel stays under its memory budget (limits.max_analysis_bytes, 1 GiB): symbol names, version needs, "
       "imports and fatbin entries are charged before they are copied, so a small file whose tables repeat one "
       "huge string or share one chain a million times is stopped, the entry and the structure named.",
       "Zip bombs exhaust disk and memory of installers and scanners; binary tables built the same way exhaust "
       "the gate itself, and a gate that dies judges nothing in the batch.",
       "Compress normally; raise limits.max_compression_ratio or max_total_uncompressed_bytes in a policy for "
       "legitimate giant wheels, "
       "limits.max_analysis_bytes for a binary whose real tables need more.",
       "error   WC403  the wheel's 86016 bytes inflate to 83886080 (975:1), over the limit of 50:1"},
      {"WC404",
       "The archive reads as one zip for every reader: end records, central directory, local headers and data "
       "agree, CRCs match, no bytes hidden between entries, no entry's data (its size from the 32-bit fields or a "
       "ZIP64 extra) runs into the next record, no ZIP64 end record carries extensible data; remote reads that fail "
       "land here too.",
       "Readers that disagree install different files from the same wheel: what was checked is not what pip "
       "installs.",
       "Rebuild the wheel with a standard zip writer; for remote failures, see the HTTP message.",
       "error   WC404  the central directory (offset 1200, 300 bytes) does not end where the end record starts"},
      {"WC405", "Entries are STORED or DEFLATED.", "pip and PyPI accept nothing else (bzip2, lzma, zstd).",
       "Rebuild with deflate.", "error   WC405  demo/data.bin: compression method 93"},
      {"WC406",
       "The archive passes PyPI's upload check (warehouse utils/zipfiles.py), which is stricter than installers: "
       "no per-entry comment in the central directory, no data descriptor, no stray bytes or duplicate ZIP64 / "
       "Unicode Path fields in a local extra field, and a local ZIP64 extra field of 0, 8, 16, 24 or 28 bytes "
       "whose sizes, read as PyPI reads them, are the central directory's.",
       "pip installs such a wheel, and PyPI refuses its upload: the release breaks at the last step. The pypi "
       "policy makes it an error.",
       "Rebuild with a seekable zip writer (the wheel and build backends' own writers), not a streaming one.",
       "warning WC406  demo/__init__.py: a data descriptor follows the entry's data (flag bit 3) (PyPI's upload "
       "check refuses it)"},
      {"WC407",
       "A wheel or sdist read from an index page (a remote full check, or any sdist) hashes to the sha256 the page "
       "gives for it (PEP 503 #sha256= fragment, PEP 691 hashes); the body is hashed as it downloads, no second pass.",
       "pip verifies that hash and refuses the file: what the index serves is not what was published (a corrupt "
       "mirror, a replaced file, a cache serving another build).",
       "Re-upload or re-mirror the file, or fix the index that writes the hash.",
       "error   WC407  the file's sha256 is 3b1f...; but the index page gives 9c04...: these are not the bytes the "
       "index published"},
      {"WC501", "Every binary's architecture matches the platform tag (x86_64, aarch64, arm64, universal2 slices...).",
       "A wheel installs on a machine where its code cannot load.",
       "Build on (or cross-compile for) the tagged architecture; fix the tag.",
       "error   WC501  demo/_ext.so: ELF aarch64 binary in a wheel tagged manylinux_2_17_x86_64"},
      {"WC502",
       "No ELF binary needs a versioned symbol (GLIBC_, GLIBCXX_, CXXABI_, GCC_) newer than the manylinux tag's "
       "glibc and libstdc++ provide.",
       "On the oldest system the tag promises, the dynamic loader refuses the library: 'version GLIBC_2.34 not "
       "found'.",
       "Build in the manylinux image of the tag (or an older one), not on a newer distribution; or raise the tag "
       "to what the symbols need (auditwheel show says which).",
       "error   WC502  demo/_ext.so: needs GLIBC_2.34 (memcpy, pthread_create), manylinux_2_17 allows GLIBC_2.17"},
      {"WC503",
       "Every DT_NEEDED library is allowed by the policy, shipped in the wheel, or provided by a declared dependency "
       "in the install set.",
       "A missing library makes the import fail with 'cannot open shared object file'.",
       "Vendor it (auditwheel repair), depend on the wheel that ships it, or allow it in linux.allowed_libraries.",
       "error   WC503  demo/_ext.so: needs libfoo.so.1, libbar.so.2, which are not found: searched $ORIGIN/lib "
       "(-> demo/lib); not system libraries manylinux_2_28 allows"},
      {"WC504",
       "RPATH/RUNPATH (ELF) and LC_RPATH (Mach-O) entries stay inside the install tree ($ORIGIN- or "
       "@loader_path-relative). An error when the loader searches an entry outside the environment for a library the "
       "wheel or its install set provides (before the wheel's copy) or lacks; a warning when the entries are dead "
       "(searched for system libraries, weak dylibs or a declared dependency's libraries only) or stay inside the "
       "environment's prefix.",
       "The loader searches those folders first: a machine with a library of that name there (a build machine's "
       "folder, /opt, a CI runner's home) loads it instead of the wheel's own.",
       "Set RPATH to $ORIGIN-relative paths (auditwheel repair does; delocate on macOS), or drop the leaked build "
       "path (patchelf --remove-rpath, install_name_tool -delete_rpath).",
       "error   WC504  demo/_ext.so: RPATH/RUNPATH entries outside the install tree: /opt/build/lib (absolute); the "
       "loader searches them for libdemo.so (before $ORIGIN/lib, where the run's copy is): a machine with a library "
       "of that name there loads it instead"},
      {"WC505", "glibc binaries in manylinux wheels, musl binaries in musllinux wheels.",
       "A musl binary does not load on glibc systems, and the reverse.", "Build in the matching image.",
       "error   WC505  demo/_ext.so: links musl libc in a manylinux wheel"},
      {"WC506", "Mach-O minimum OS versions (LC_BUILD_VERSION) at or below the tag's, and the tagged architectures.",
       "macOS refuses to load a library built for a newer OS than the machine runs.",
       "Set MACOSX_DEPLOYMENT_TARGET to the tag's version before building; delocate-wheel can retag.",
       "error   WC506  demo/_ext.so: minimum macOS 14.0 above the tag's 11.0"},
      {"WC507", "PE machine types match win32, win_amd64 or win_arm64.",
       "Windows refuses a DLL of another architecture ('not a valid Win32 application').",
       "Build with the matching toolchain.", "error   WC507  demo/_ext.pyd: PE machine x86 in a win_amd64 wheel"},
      {"WC508", "Binaries parse: ELF, Mach-O, PE and fatbin structures in bounds and consistent.",
       "A malformed binary fails to load, or hides contents from the other checks.",
       "Rebuild; check post-processing steps (strip, patchelf) that rewrote the file.",
       "error   WC508  demo/_ext.so: program header table runs past the end of the file"},
      {"WC509", "PT_GNU_STACK without the execute flag.",
       "An executable stack disables a basic exploit mitigation, and recent glibc refuses to dlopen such "
       "libraries.",
       "Link with -z noexecstack; fix assembly files lacking .note.GNU-stack.",
       "warning WC509  demo/_ext.so: executable stack requested"},
      {"WC510", "x86-64 ISA level (GNU property notes) not above the platform baseline (x86-64 v1 for manylinux).",
       "The library crashes with an illegal instruction on older CPUs the tag admits.",
       "Build without -march beyond the baseline, or dispatch at run time.",
       "warning WC510  demo/_ext.so: needs x86-64-v3"},
      {"WC511",
       "abi3/abi3t wheels import only stable-ABI symbols of the tagged cpXY (Linux, macOS, Windows), abi3t modules "
       "export PyModExport_.",
       "An abi3 wheel is installed on every later CPython; a non-stable symbol fails to load there.",
       "Build with Py_LIMITED_API set to the tagged version, or tag the wheel for one Python (cp312-cp312).",
       "error   WC511  demo/_ext.abi3.so: imports PyObject_GetBuffer, stable only from 3.11 (tag cp38-abi3)"},
      {"WC512",
       "No pre-C++11-ABI std::string/std::list symbols in the policy's C++ namespaces, and at least the policy's count "
       "of C++11-ABI ones (PyTorch's release check).",
       "Extensions built against libtorch with the other ABI fail to link or crash.",
       "Build with _GLIBCXX_USE_CXX11_ABI=1 throughout.",
       "error   WC512  torch/lib/libtorch_cpu.so: 12 pre-C++11 ABI symbols in c10::"},
      {"WC513", "Every library a version need (.gnu.version_r) names is also a DT_NEEDED entry.",
       "patchelf --replace-needed without --rename-dynamic-symbols leaves needs the loader cannot satisfy.",
       "Re-run the repair with a patchelf that updates version needs, or rebuild.",
       "error   WC513  demo/_ext.so: version needs name libfoo.so.1, which no DT_NEEDED entry names"},
      {"WC514",
       "Every non-weak undefined dynamic symbol of every ELF binary binds as ld.so binds it: in the libraries an "
       "import_loaded project opened RTLD_GLOBAL (torch's libtorch_global_deps.so), then the binary's DT_NEEDED "
       "closure breadth first, each need met as WC503 meets it (search paths, siblings, a library a dependency's "
       "import already loaded by soname). A versioned reference binds a definition with that version name (hidden "
       "sym@VER too) or a base one; an unversioned one any non-hidden definition; every non-weak version need must be "
       "defined by the file it names. Taken on trust, since the run has no file for them: references versioned to a "
       "system library (WC502 judges the version), unversioned ones when the scope has a system library that does "
       "not version every export (linux.versioned_libraries: glibc, libstdc++ and libgcc_s do) or a declared "
       "dependency whose wheel is not in the run, the interpreter's Py*/_Py* C API, and the C library names a Python "
       "process holds (linux.interpreter_symbols, read from glibc: sqrt or dlopen called without linking libm or "
       "libdl bind there). A binary with a missing "
       "library (WC503) is not judged again. Not resolved at --depth metadata (symbols are not read). Mach-O: each "
       "import dyld binds (chained fixups, else bind and lazy-bind opcodes) against the image its library ordinal "
       "resolves to, its export trie and re-exported dylibs; flat lookups against the images of the process; weak "
       "imports may miss. PE: each import by name or ordinal against the export directory of the run's DLL of that "
       "name, forwarders followed; a delay-loaded one is a warning.",
       "The import fails: 'undefined symbol: _ZN3c10...' when an extension built against one torch is installed "
       "beside another, or 'version `libnvJitLink.so.12' not found'.",
       "Pin the dependency the binary was built against (torch==2.15.*), or rebuild against the one the "
       "requirement admits; ship the library that defines the symbol.",
       "error   WC514  vision/_C.so: 2 undefined symbols resolve nowhere the loader looks: _ZN3c104cuda29c10_cuda_"
       "check_implementationEiPKcS2_jb (c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, "
       "unsigned int, bool)), ...; looked in libc10.so, libtorch_cpu.so from torch 2.15.0"},
      {"WC515",
       "Binaries that link libtorch or libc10 are classed by the symbols they import: stable (only the LibTorch "
       "stable ABI: the C shims aoti_torch_*/torch_* and header-only torch::headeronly/torch::stable) or unstable "
       "(any other c10::, at::, torch::, caffe2:: symbol). An unstable binary needs a torch requirement admitting "
       "one minor release only (==2.15.*, >=2.15,<2.16); a stable one must require at least the torch that "
       "introduced its newest shim (policies/torch_stable_abi.json, generated from torch's headers). The range "
       "rule is a warning by default (the pin may live elsewhere), the shim rule an error; both are errors in pytorch.",
       "pip installs the extension beside any torch its requirement admits; torch's unstable C++ ABI changes every "
       "minor release, and a stable shim is missing from releases before it was added: undefined symbol at import.",
       "Pin torch to the minor release the binary was built against (torch==2.15.*), or build against the stable "
       "ABI only and require the torch that provides every shim used.",
       "error   WC515  ext/_C.so: uses the LibTorch stable ABI, newest shim torch_new_tensor_handle (torch 2.13), "
       "but Requires-Dist torch>=2.10 admits 2.10 and every later release, and torch 2.10 to 2.12 lack it"},
      {"WC516",
       "A process loads at most one copy of each runtime of linux.runtimes (libgomp, libgfortran, libquadmath, "
       "libiomp5, libomp, libcudart), known by soname stem without auditwheel's hash or by the version nodes it "
       "defines (GOMP_*, GFORTRAN_*). Copies of one soname count once (the loader binds the second need to the "
       "first).",
       "Two OpenMP runtimes keep two thread pools: oversubscription, hangs, crashes (PyTorch keeps check_gomp.py for "
       "this); two Fortran runtimes keep two I/O states.",
       "Link the runtime a dependency already ships (torch/lib/libgomp.so.1) instead of vendoring another copy, or "
       "use one build of the runtime across the wheels installed together.",
       "warning WC516  torch/lib/libgomp.so.1: 2 copies of libgomp load into one process: torch/lib/libgomp.so.1, "
       "ext.libs/libgomp-a34b3233.so.1 (ext 1.0)"},
      {"WC517",
       "The wheels of a run that a wheel is installed with (its install set) are the ones its Requires-Dist names. "
       "When every wheel of such a project in the run is at a version the requirement excludes, pip refuses to "
       "install the two together; installed anyway (in two steps, or with --no-deps) the process loads the one "
       "that is there. That wheel joins the install set all the same, so the binaries are judged against it "
       "(WC503, WC514 say what fails), and this finding names the requirement and the wheel it excludes. Where "
       "the run also holds an admitted version, that one is used and nothing is said.",
       "torchvision 0.28.0 requires torch==2.13.0; released beside torch 2.15.0 it cannot be installed, and "
       "forced it fails at import on c10::cuda::c10_cuda_check_implementation.",
       "Release the wheels that belong together: rebuild against the provider of the run, or widen the "
       "requirement only where the binaries still bind (WC514 says whether they do).",
       "error   WC517  torchvision-0.28.0.dist-info/METADATA: Requires-Dist torch==2.13.0 excludes torch 2.15.0 "
       "(torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl), the only torch of the run installable with it: pip "
       "refuses to install them together (ResolutionImpossible); ..."},
      {"WC601", "The CUDA runtime the binaries link (libcudart.so.N) matches the wheel's CUDA variant.",
       "A cu128 wheel linking CUDA 12.6 pulls or needs the wrong runtime.",
       "Build against the toolkit the variant names.",
       "error   WC601  demo/_C.so: links libcudart.so.12 (CUDA 12.6) in a cu128 wheel"},
      {"WC602", "Every SASS architecture the policy requires for the variant is in the fatbins.",
       "A GPU generation without SASS falls back to JIT from PTX or fails with 'no kernel image'.",
       "Add the architecture to TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES.",
       "error   WC602  demo/_C.so: no SASS for sm_90 (required by cu128)"},
      {"WC603", "PTX for the policy's forward-compatibility target is in the fatbins.",
       "Without PTX, GPUs newer than the build cannot run the code.", "Add compute_XY (PTX) to the arch list.",
       "error   WC603  demo/_C.so: no PTX for compute_90"},
      {"WC604",
       "Architectures the variant's toolkit can target; family- or arch-specific targets (sm_90a, sm_100f) only "
       "where the policy allows them.",
       "Code for an impossible or forbidden target is dead weight or never loads.",
       "Trim the arch list to what the toolkit supports.",
       "error   WC604  demo/_C.so: sm_120 needs CUDA 12.8, the variant is cu126"},
      {"WC605", "CUDA libraries the policy expects from dependency wheels are not bundled.",
       "Bundled copies double the size and clash with the shared ones at run time.",
       "Depend on the nvidia-* wheel instead of copying the library.",
       "warning WC605  demo/lib/libcublas.so.12: bundled; expected from nvidia-cublas-cu12"},
      {"WC606", "The CUDA variant is one the policy knows.",
       "Without variant facts, the CUDA checks have nothing to compare against.",
       "Add the variant to the policy's cuda.variants.", "warning WC606  variant cu140 is not in the policy"},
      {"WC701", "The wheel's size stays under the policy's limit (PyPI's default limit is 100 MB).",
       "PyPI refuses the upload; mirrors and caches suffer.",
       "Strip debug info, drop unused architectures, or request a larger limit from PyPI.",
       "error   WC701  wheel is 120.4 MB, over the 100 MB limit"},
      {"WC702", "Each wheel's size against a baseline report grows by less than the allowed ratio.",
       "A sudden growth usually means debug info, a duplicated library or a stray file shipped.",
       "Find what grew (wheelcheck inspect of both), or update the baseline.",
       "error   WC702  demo-1.1-...whl: 40.0 MB to 95.0 MB (+138%), allowed +20%"},
      {"WC703", "Every wheel the policy's release matrix expects is present.",
       "Users on the missing platform or Python get an sdist build or nothing.",
       "Build the missing matrix cells, or shrink the matrix in the policy.",
       "error   WC703  release set: no wheel for cp314t on manylinux_*_aarch64"},
      {"WC704", "No wheel outside the release matrix.", "An unplanned wheel is untested and uncatalogued.",
       "Remove it, or add its cell to the matrix.", "error   WC704  demo-1.0-cp39-...whl: cp39 is not in the matrix"},
      {"WC705",
       "Version, Requires-Dist, Requires-Python, classifiers and the PEP 794 Import-Name/Import-Namespace set agree "
       "across the release set.",
       "Users get different dependencies depending on their platform by accident.",
       "Build every wheel from the same commit and configuration.",
       "error   WC705  release set: Requires-Dist differs (aarch64 cp313 lacks the CUDA pin)"},
      {"WC706", "Forbidden content per policy: __pycache__, static archives, tests, build leftovers.",
       "Dead weight, stale bytecode, or private files shipped by accident.",
       "Exclude them in the build configuration (MANIFEST, package data settings).",
       "error   WC706  demo/__pycache__/x.cpython-312.pyc: forbidden by the policy"},
      {"WC707", "CUDA variant labels, Requires-Dist pins and GPU code agree across the release set.",
       "One wheel of a cu128 release built against cu126 breaks that platform only.",
       "Rebuild the odd wheel with the release's toolkit.",
       "error   WC707  release set: cu128 label without CUDA evidence in the aarch64 wheel"},
      {"WC708", "A nightly's .devYYYYMMDD is at most release.max_nightly_age_days old (today, UTC).",
       "A nightly channel that serves a stale build hides a broken nightly pipeline; PyTorch's validation refuses "
       "nightlies older than 3 days.",
       "Fix the nightly build or the upload job; raise the policy's limit for a channel that is slower on purpose.",
       "error   WC708  torch-2.16.0.dev20261120+cu130-...whl: nightly dev20261120 is 12 days old, over the policy's 3"},
      {"WC710",
       "Against the baseline, each binary's GPU code still runs on every device it ran on: plain sm_XY SASS runs on "
       "its major with minor >= Y, sm_XYa on XY only, sm_XYf on its family, PTX on XY and every later device. Labels "
       "that change without losing a device (sm_120a -> sm_120) are not regressions.",
       "A nightly that drops a card's code still checks clean; users of that card JIT from PTX or fail.",
       "Restore the architecture in TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES, or allow it in the policy's "
       "baseline.allow with a reason.",
       "error   WC710  torch/lib/libtorch_cuda.so: GPU code dropped: sm_75 removed, so sm_75 can no longer run its "
       "kernels"},
      {"WC711",
       "Against the baseline, a library keeps every name it exported. An error for libraries other wheels link "
       "against (baseline.public_libraries, libtorch*/libc10* by default, and any library a wheel of the run or the "
       "baseline needs); a warning for the others.",
       "Extensions built yesterday against the library fail tomorrow with 'undefined symbol'.",
       "Keep the symbol (or a compatibility alias), or bump the version contract and rebuild the dependents.",
       "error   WC711  torch/lib/libc10.so: 1 exported name removed: c10::gone()"},
      {"WC712",
       "Against the baseline, the platform floor does not rise: the manylinux/musllinux/macOS tag, each binary's "
       "GLIBC and macOS minos (a warning where the new tag allows it), GLIBCXX/CXXABI (a warning), Requires-Python.",
       "Users on the older systems or Pythons silently lose the wheel (pip picks an older release or an sdist).",
       "Keep the build image or deployment target, or announce the change and allow it.",
       "error   WC712  x-2.0-cp312-cp312-manylinux_2_28_x86_64.whl: platform floor raised: manylinux2014_x86_64 -> "
       "manylinux_2_28_x86_64"},
      {"WC713", "Every (project, python, platform, variant) the baseline shipped has a wheel now.",
       "A job that failed quietly shrinks the matrix; its users get nothing.", "Fix the build job.",
       "error   WC713  the release matrix shrank: x cp39-cp39-manylinux_2_28_x86_64 shipped in the baseline"},
      {"WC714", "Requires-Dist changes against the baseline are shown (added, removed, changed).",
       "A new dependency or a narrowed pin changes what users install.", "Review it; waive when intended.",
       "warning WC714  Requires-Dist added requests; changed torch: ==2.14.0 -> ==2.15.0"},
      {"WC715", "Console scripts, entry points and top-level import names of the baseline are still there.",
       "Removing one breaks users' commands and imports.", "Restore it or deprecate it first.",
       "error   WC715  entry points removed: console_scripts:x-cli"},
      {"WC716", "Bundled libraries (grafted .libs/, .dylibs/) do not go down in version.",
       "A downgrade reintroduces fixed bugs and vulnerabilities (a bundled OpenSSL).", "Bundle the newer build.",
       "error   WC716  bundled libssl.so downgraded: 3.0.13 -> 3.0.2"},
      {"WC720",
       "With Metadata-Version 2.2 or later, every PKG-INFO field not listed in Dynamic (Name, Version, "
       "Requires-Python, "
       "Requires-Dist, Provides-Extra, Summary, License-Expression, Import-Name, Classifier, ...) is what each wheel "
       "of "
       "the same version in the run says; requirement lists compare as sets of normalised requirements.",
       "PEP 643 promises that a wheel built from the sdist carries those values: tools resolve from PKG-INFO without "
       "building, and get another answer than the wheels give.",
       "Build the wheels from the sdist you publish, or mark the field Dynamic in pyproject.toml.",
       "error   WC720  demo-1.0/PKG-INFO: Requires-Dist is not Dynamic in PKG-INFO (Metadata-Version 2.4), so every "
       "wheel "
       "built from it must say the same: PKG-INFO says 'numpy>=2', demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl says "
       "'numpy>=1.26'"},
      {"WC721", "An sdist is named {normalized_name}-{version}.tar.gz (PEP 625), as its PKG-INFO says.",
       "PyPI and installers find sdists by that name; a mismatch uploads or resolves the wrong project or version.",
       "Build with a current build backend (PEP 625 names), or rename to what PKG-INFO says.",
       "error   WC721  'Demo-Pkg-1.0.tar.gz' should be 'demo_pkg-1.0.tar.gz': the name is not normalised and escaped"},
      {"WC722",
       "An sdist has PKG-INFO in its top-level folder, readable, with Name and Version; where the policy sets "
       "sdist.require_static_metadata, its Metadata-Version is 2.2 or later.",
       "Without it an installer must build the sdist to learn what it is, and PyPI refuses the upload.",
       "Build the sdist with a PEP 517 backend (python -m build --sdist).",
       "error   WC722  PKG-INFO: no PKG-INFO in the archive's top-level folder (demo-1.0/PKG-INFO)"},
      {"WC801", "A variant label comes with dist-info/variant.json naming exactly that label, and the reverse.",
       "Variant-aware installers pick by the label and check the declaration; a mismatch breaks selection.",
       "Let the variant-enabled build backend write both.", "error   WC801  variant label 'cu128' but no variant.json"},
      {"WC802", "variant.json follows its schema: known $schema, key and value patterns, no duplicates.",
       "Installers refuse or misread malformed declarations.", "Regenerate variant.json with the backend.",
       "error   WC802  variant.json: unknown $schema"},
      {"WC803", "Variant properties exist in their provider's catalogue; single-valued features have one value.",
       "Properties nobody knows select nothing.", "Use the provider's documented names.",
       "error   WC803  variant.json: nvidia::cuda_version_lower_bound has two values"},
      {"WC804", "Declared GPU or CPU properties are backed by the binaries (SASS/PTX, CUDA runtime, x86-64 level).",
       "An installer picks this variant for a GPU it cannot run on.",
       "Declare what the binaries contain, or build what is declared.",
       "error   WC804  nvidia::sm_arch 90 declared, no SASS or PTX for sm_90 in any binary"},
      {"WC805", "GPU code that no declared variant property selects.",
       "Dead weight: no installer picks this wheel for those GPUs.", "Declare the architecture, or drop the code.",
       "warning WC805  SASS for sm_75 but no declared property selects compute capability 7.5"},
      {"WC806",
       "Variants across a release: one property set per label, consistent default-priorities, an index "
       "-variants.json equal to the union of the wheels' declarations.",
       "Installers resolve variants from the index file; a disagreement picks the wrong wheel.",
       "Generate the index file from the wheels themselves.",
       "error   WC806  label cu128 declared with two property sets"},
      {"WC901",
       "Each file in *.dist-info/sboms/ is a CycloneDX (1.4-1.7) or SPDX (2.2, 2.3, 3.0) JSON document with what its "
       "schema requires, of the required types, within the size, depth and component limits.",
       "Trivy, Syft and Dependency-Track drop a document they cannot read: the wheel's contents go unscanned.",
       "Write the SBOM with a maintained generator (auditwheel >= 6.5, cyclonedx-py, maturin) and validate it.",
       "error   WC901  x.dist-info/sboms/app.cdx.json: /components/3: required field 'name' is missing"},
      {"WC902",
       "PEP 770's SHOULDs: a creation time and the tool, a primary component that is this package "
       "(pkg:pypi/<name>@<version>), every component with a version and an identifier (purl, CPE or download URL), "
       "every component reachable from the primary.",
       "A component without version or identifier cannot be matched against vulnerability databases.",
       "Give the generator the package's name and version; link each component from the primary's dependencies.",
       "warning WC902  x.dist-info/sboms/app.cdx.json: no creation time; 3 of 9 components have no version"},
      {"WC903",
       "Every native library the wheel bundles (auditwheel's <pkg>.libs/, delocate's .dylibs/, delvewheel's DLLs, "
       "well-known third-party libraries) is declared by an SBOM component: auditwheel's bom-ref path hash, "
       "evidence.occurrences, SPDX file relationships, a file hash, or the library's name (never a language "
       "package's).",
       "auditwheel omits libraries no distro package owns (auditwheel#728): OpenSSL or libpq go unscanned while the "
       "SBOM looks complete.",
       "Add components for the grafted libraries (their upstream name, version and purl).",
       "warning WC903  declared 1 of 18 bundled libraries; undeclared: psycopg2_binary.libs/libssl-81ffa89e.so.3 "
       "(OpenSSL), ..."},
      {"WC904",
       "What the SBOM claims about the wheel is true: hashes of files in the wheel (each component's own files), "
       "auditwheel's file_name qualifier on this project's purl, the versions a bundled library says in its bytes or "
       "its file name carries, pkg:pypi components and explicit locations that are in the archive.",
       "A stale SBOM (after a retag, a rebuild, a graft) points scanners at software that is not there.",
       "Generate the SBOM last, from the wheel as uploaded.",
       "error   WC904  x.dist-info/sboms/auditwheel.cdx.json: file_name=x-1.0-cp312-cp312-linux_x86_64.whl, but "
       "this wheel is x-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"},
      {"WC905",
       "An SBOM carries no absolute build-machine paths (CI workspaces, home and temporary directories); with "
       "sbom.forbid_random_serial, no random serial number.",
       "Identical builds then produce different wheels, and the paths leak the build machine's layout.",
       "Write paths relative to the project; derive the serial number from the content (UUID v5).",
       "warning WC905  x.dist-info/sboms/app.cdx.json: absolute build paths: /metadata/component/name: "
       "/home/runner/work/x/x"},
      {"WC906",
       "The same grafted library (auditwheel's 8-hex content hash in its name) is declared with one purl and version "
       "in every wheel of the run.",
       "One set of bytes with two identities: a scanner reports one wheel vulnerable and its twin clean.",
       "Build the release's wheels in one image and generate their SBOMs alike.",
       "error   WC906  libssl-81ffa89e.so.3: pkg:rpm/almalinux/openssl-libs@3.0.7 in a.whl, "
       "pkg:rpm/almalinux/openssl-libs@3.2.2 in b.whl"},
      {"WC911",
       "Each PEP 740 attestation of the file verifies offline against the Sigstore trust root the user pins: the "
       "in-toto "
       "statement names this file and its sha256, the DSSE signature verifies with the Fulcio certificate, the chain "
       "reaches a Fulcio CA at the log's integrated time (digitalSignature, codeSigning), the embedded SCT is from a "
       "CT log of the root, and the Rekor entry agrees with the bundle, is included under a checkpoint the log signed, "
       "and carries the log's signed entry timestamp.",
       "An attestation that does not verify is a claim, not provenance: anyone can write one.",
       "Publish through Trusted Publishing, which attests each file; pin the trust root that was current then.",
       "error   WC911  x-1.0-py3-none-any.whl.publish.attestation: does not verify at the statement step: the "
       "subject's sha256 is 8cb3..., the file's 9f2c..."},
      {"WC912",
       "The publisher in the attestation's certificate (GitHub repository and workflow, GitLab project and CI file, "
       "Google service account, CircleCI project, or a signing identity) is the one the policy names.",
       "A changed publisher (a fork, a renamed workflow, a hand-signed upload) is how a compromised release looks "
       "(uv#9122: identity changed).",
       "Publish from the expected workflow, or update provenance.publisher when the change is intended.",
       "error   WC912  torchvision-0.24.0-cp312-cp312-manylinux_2_28_x86_64.whl.provenance#1: published by GitHub "
       "someone/vision (release.yml @ refs/tags/v0.24.0): repository someone/vision, not pytorch/vision"},
      {"WC913", "A file the policy requires attestations for (provenance.require) has one beside it.",
       "Attestations turned off silently (langchain#38822) leave a release unprovable.",
       "Download <file>.provenance from PyPI's Integrity API beside the file, or pass --provenance DIR.",
       "error   WC913  no PEP 740 attestation (looked for x.whl.provenance, x.whl.publish.attestation, "
       "x.whl.slsa.attestation)"},
      {"WC914",
       "Every file of a project in the run was published by one publisher (kind, repository or account, workflow), "
       "and either all of them carry verified attestations or none does.",
       "One file from another workflow, or one unattested among attested ones, is how a hand-uploaded or hijacked "
       "file hides in a release.",
       "Publish every file of the release from the one workflow.",
       "error   WC914  torchvision: published by GitHub pytorch/vision release.yml (11: ...), but 1 without "
       "attestation (torchvision-0.24.0-cp312-cp312-win_amd64.whl)"},
      {"WC915",
       "Against --baseline (the last release's JSON report), each file whose counterpart (same project, tags, "
       "variant) had verified provenance still has it, from the same publisher.",
       "Attestations turned off (langchain#38822) or an identity that changed (uv#9122) between releases.",
       "Restore Trusted Publishing in the release workflow, or refresh the baseline when the change is intended.",
       "error   WC915  x-2.0-py3-none-any.whl: published by GitHub o/x release.yml in the baseline "
       "(x-1.9-py3-none-any.whl), now without an attestation"},
      {"WC916",
       "The pinned Sigstore trust root is younger than provenance.max_root_age_days (by the start of its newest key "
       "or CA).",
       "Sigstore rotates CT logs, Rekor shards and Fulcio CAs in; an old pin fails new attestations or misses the "
       "new keys' revocations.",
       "Refresh trusted_root.json from Sigstore's TUF repository (sigstore-python's or cosign's copy) and pin it "
       "again.",
       "warning WC916  the trust root's newest key or CA began 700 days ago, over provenance.max_root_age_days (365)"},
  };
  return help;
}

const RuleHelp* find_rule_help(std::string_view id) {
  for (const auto& h : wheelcheck_rule_help())
    if (id == h.id) return &h;
  return nullptr;
}

}  // namespace wc
