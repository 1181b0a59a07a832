#include "support/installer_cases.h"

#include "support/fixtures.h"
#include "support/raw_zip.h"

namespace wc::testing {
namespace {

std::string tag_of(const std::string& platform) { return "py3-none-" + platform; }

// A wheel name-1.0 for `platform` holding `files` (all in RECORD) and `unrecorded` entries after
// them (directories, which RECORD does not list).
InstallerCase wheel(std::string klass, std::string label, const std::string& name, const std::vector<RawEntry>& files,
                    std::string rule, std::string message, const std::string& platform = "any",
                    const std::vector<RawEntry>& unrecorded = {}) {
  auto entries = raw_wheel_entries(name, files, tag_of(platform));
  entries.insert(entries.begin() + static_cast<long>(files.size()), unrecorded.begin(), unrecorded.end());
  InstallerCase c;
  c.klass = std::move(klass);
  c.label = std::move(label);
  c.filename = name + "-1.0-" + tag_of(platform) + ".whl";
  c.bytes = bytes_of(raw_zip(entries));
  c.rule = std::move(rule);
  c.message = std::move(message);
  return c;
}

InstallerCase control(InstallerCase c) {
  c.control = true;
  return c;
}

InstallerCase warning(InstallerCase c) {
  c.severity = Severity::warning;
  return c;
}

void directoryness(std::vector<InstallerCase>& out) {
  const char* k = "directory-ness";
  const char* says = "say directory but its name does not end in '/'";
  RawEntry dos = raw_file("d/run.py", "import os\n");
  dos.made_by = 0x0014, dos.dos_attr = 0x10, dos.unix_mode = 0;
  RawEntry unix_dir = raw_file("d/run.py", "import os\n");
  unix_dir.unix_mode = 040755;
  out.push_back(wheel(k, "DOS directory attribute on a file name", "d", {dos}, "WC404", says));
  out.push_back(wheel(k, "Unix directory mode on a file name", "d", {unix_dir}, "WC404", says));
  RawEntry dir = raw_file("d/sub/", "");
  dir.made_by = 0x0014, dir.dos_attr = 0x10, dir.unix_mode = 0;
  out.push_back(control(wheel(k, "a directory named with its slash", "d", {raw_file("d/sub/x.py", "x = 1\n")}, "WC404",
                              says, "any", {dir})));
}

void name_decoding(std::vector<InstallerCase>& out) {
  const char* k = "name decoding";
  auto unflagged = [](std::string name) {
    RawEntry e = raw_file(std::move(name), "x = 1\n");
    e.flags = 0;
    return e;
  };
  // RECORD lists the name as zipfile decodes it (what installer validates against).
  InstallerCase cp437 = wheel(k, "non-ASCII name without the UTF-8 flag", "n", {unflagged("n/caf\x82.py")}, "WC401",
                              "decode it as cp437");
  auto entries = raw_wheel_entries("n", {unflagged("n/caf\x82.py")});
  std::string& record = entries.back().content;
  record.replace(record.find("caf\x82"), 4, "caf\xc3\xa9");
  entries.back().finish();
  cp437.bytes = bytes_of(raw_zip(entries));
  out.push_back(cp437);
  out.push_back(wheel(k, "a cp437 name that decodes to another entry's", "n",
                      {raw_file("n/\xc3\xa9.py", "a = 1\n"), unflagged("n/\x82.py")}, "WC401",
                      "the name it gives the entry 'n/\xc3\xa9.py' too"));
  RawEntry local_clear = raw_file("n/caf\xc3\xa9.py", "x = 1\n");
  local_clear.local_flags_xor = 0x0800;
  out.push_back(wheel(k, "UTF-8 flag in the central directory only", "n", {local_clear}, "WC404",
                      "zipfile decodes the two names differently"));
  out.push_back(
      control(wheel(k, "a flagged UTF-8 name", "n", {raw_file("n/caf\xc3\xa9.py", "x = 1\n")}, "WC401", "cp437")));
  out.push_back(control(wheel(k, "an unflagged ASCII name", "n", {unflagged("n/plain.py")}, "WC401", "cp437")));
}

void flags_and_versions(std::vector<InstallerCase>& out) {
  const char* k = "flags and versions";
  RawEntry v64 = raw_file("f/x.py", "x = 1\n");
  v64.version_needed = 64;
  out.push_back(wheel(k, "version needed 6.4", "f", {v64}, "WC404", "version needed to extract is 6.4, above the 6.3"));
  for (auto [bit, what] : std::vector<std::pair<uint16_t, const char*>>{{0x0001, "bit 0"},
                                                                        {0x0010, "bit 4"},
                                                                        {0x0020, "bit 5"},
                                                                        {0x0040, "bit 6"},
                                                                        {0x1000, "bit 12"},
                                                                        {0x2000, "bit 13"}}) {
    RawEntry e = raw_file("f/x.py", "x = 1\n");
    e.flags |= bit;
    out.push_back(wheel(k, std::string("general-purpose ") + what, "f", {e}, "WC404",
                        std::string("general-purpose flag ") + what));
  }
  RawEntry local_only = raw_file("f/x.py", "x = 1\n");
  local_only.local_flags_xor = 0x0020;
  out.push_back(wheel(k, "bit 5 in the local header only", "f", {local_only}, "WC404",
                      "local header flags 0x0820 differ from the central directory's 0x0800"));
  RawEntry ok = raw_file("f/x.py", "x = 1\n", true);
  ok.version_needed = 63, ok.flags |= 0x0002;  // deflate option bit: changes nothing
  out.push_back(control(wheel(k, "version 6.3 and a deflate option bit", "f", {ok}, "WC404", "")));
  RawEntry host_byte = raw_file("f/x.py", "x = 1\n");
  host_byte.version_needed = 0x0314;  // 2.0, and a host in the byte zipfile calls reserved
  out.push_back(control(wheel(k, "version 2.0 with a host byte", "f", {host_byte}, "WC404", "")));
}

void symlinks(std::vector<InstallerCase>& out) {
  const char* k = "symlinks";
  for (uint16_t host : {3, 2, 5, 16, 30, 0, 11}) {
    RawEntry link = raw_file("s/link.py", "../../../etc/passwd");
    link.made_by = uint16_t(host << 8 | 20), link.unix_mode = 0120777;
    out.push_back(wheel(k, "symlink mode from host " + std::to_string(host), "s", {link}, "WC402", "symbolic link"));
  }
  RawEntry dos = raw_file("s/file.py", "x = 1\n");
  dos.made_by = 0x0014, dos.unix_mode = 0100644;
  out.push_back(control(wheel(k, "regular mode from MS-DOS", "s", {dos}, "WC402", "")));
}

void stored_local_record(std::vector<InstallerCase>& out) {
  const char* k = "stored local record";
  RawEntry evil = raw_file("l/evil.py", "import os\n");
  const std::string head = "just data";
  RawEntry with_descriptor =
      raw_file("l/carrier.bin", head + data_descriptor(crc32_of(head), head.size(), head.size()) + local_record(evil));
  with_descriptor.descriptor = true;
  out.push_back(wheel(k, "a descriptor and a local record inside a STORED entry", "l", {with_descriptor}, "WC404",
                      "holds a data descriptor signature at offset"));
  RawEntry bare = raw_file("l/carrier.bin", head + local_record(evil));
  bare.descriptor = true;
  out.push_back(wheel(k, "a local record inside a STORED entry with a descriptor", "l", {bare}, "WC404",
                      "holds a local file header signature at offset"));
  RawEntry sized = raw_file("l/carrier.bin", head + local_record(evil));  // no descriptor: its size is known
  out.push_back(control(wheel(k, "a local record inside a STORED entry of known size", "l", {sized}, "WC404",
                              "a STORED entry with a data descriptor")));
  RawEntry plain = raw_file("l/carrier.bin", "plain bytes\n");
  plain.descriptor = true;
  out.push_back(control(wheel(k, "a STORED entry with an honest descriptor", "l", {plain}, "WC404", "")));
}

void line_breaks(std::vector<InstallerCase>& out) {
  const char* k = "line separators";
  for (auto [label, name] : std::vector<std::pair<const char*, std::string>>{{"U+2028",
                                                                              "r/a\xe2\x80\xa8"
                                                                              "b.py"},
                                                                             {"U+2029",
                                                                              "r/a\xe2\x80\xa9"
                                                                              "b.py"},
                                                                             {"U+0085",
                                                                              "r/a\xc2\x85"
                                                                              "b.py"},
                                                                             {"U+000D", "r/a\rb.py"},
                                                                             {"U+000B", "r/a\vb.py"},
                                                                             {"U+001E",
                                                                              "r/a\x1e"
                                                                              "b.py"}})
    out.push_back(wheel(k, std::string("a name holding ") + label, "r", {raw_file(name, "x = 1\n")}, "WC401",
                        std::string("name contains ") + label + ", a line break"));
  // A row of RECORD split by a form feed: pip reads "../../../evil.py,," as a row of its own (pip
  // uninstall removes that path); a csv reader of the file sees a size of "6\f...".
  InstallerCase injected = wheel(k, "a RECORD row split by a form feed", "r", {raw_file("r/x.py", "x = 1\n")}, "WC301",
                                 "line 1: U+000C is a line break for pip");
  auto rows = raw_wheel_entries("r", {raw_file("r/x.py", "x = 1\n")});
  std::string& record = rows.back().content;
  record.insert(record.find('\n'), "\f../../../evil.py,,");
  rows.back().finish();
  injected.bytes = bytes_of(raw_zip(rows));
  out.push_back(injected);
  out.push_back(control(wheel(k, "a name holding U+2027", "r",
                              {raw_file("r/a\xe2\x80\xa7"
                                        "b.py",
                                        "x = 1\n")},
                              "WC401", "")));
  out.push_back(warning(wheel(k, "an import line after a lone \\r in a .pth file", "r",
                              {raw_file("r/__init__.py", ""), raw_file("r-hook.pth", "r\rimport os\n")}, "WC209",
                              "1 'import' line (first at line 2)")));
  out.push_back(warning(wheel(k, "an import line after U+2028 in a .pth file", "r",
                              {raw_file("r/__init__.py", ""), raw_file("r-hook.pth", "r\xe2\x80\xa8import os\n")},
                              "WC209", "1 'import' line (first at line 2)")));
  out.push_back(control(wheel(k, "a .pth file of paths", "r",
                              {raw_file("r/__init__.py", ""), raw_file("r-hook.pth", "r\nr/sub\r\n")}, "WC209", "")));
}

void installer_semantics(std::vector<InstallerCase>& out) {
  const char* k = "installer semantics";
  out.push_back(wheel(k, "a file and a directory at one path", "i",
                      {raw_file("i/b", "file\n"), raw_file("i/b/c.py", "x = 1\n")}, "WC401",
                      "installs 'i/b' as a file, and the entry 'i/b/c.py' as a directory"));
  // Nested clashes: each file key is judged against everything below it, and the entry named is
  // the first in archive order ('i/b/z.py'), not the first in name order.
  out.push_back(wheel(k, "a file below a file below a file", "i",
                      {raw_file("i/b", "file\n"), raw_file("i/b/z.py", "x = 1\n"), raw_file("i/b/a", "file\n"),
                       raw_file("i/b/a/c.py", "x = 1\n")},
                      "WC401", "installs 'i/b' as a file, and the entry 'i/b/z.py' as a directory"));
  out.push_back(wheel(k, "a file inside a file, a sibling with a longer name aside", "i",
                      {raw_file("i/b.py", "x = 1\n"), raw_file("i/b-c/d.py", "x = 1\n"), raw_file("i/b", "file\n"),
                       raw_file("i/b/a", "file\n"), raw_file("i/b/a/c.py", "x = 1\n")},
                      "WC401", "installs 'i/b/a' as a file, and the entry 'i/b/a/c.py' as a directory"));
  out.push_back(wheel(k, "an unknown .data scheme", "i", {raw_file("i-1.0.data/lib/evil.py", "x = 1\n")}, "WC102",
                      "a .data entry outside purelib/"));
  out.push_back(wheel(k, "a file directly under .data", "i", {raw_file("i-1.0.data/evil.py", "x = 1\n")}, "WC102",
                      "a .data entry outside purelib/"));
  // A file (not the directory) named like a scheme: pip refuses the wheel (issue 31).
  out.push_back(wheel(k, "a file named like the platlib scheme", "i",
                      {raw_file("i/__init__.py", ""), raw_file("i-1.0.data/platlib", "x = 1\n")}, "WC102",
                      "a .data entry outside purelib/"));
  out.push_back(wheel(k, "another project's dist-info through purelib", "i",
                      {raw_file("i/__init__.py", ""), raw_file("i-1.0.data/purelib/torch-99.0.dist-info/METADATA",
                                                               "Metadata-Version: 2.1\nName: torch\nVersion: 99.0\n")},
                      "WC102", "installs the metadata directory 'torch-99.0.dist-info'"));
  out.push_back(wheel(k, "an egg-info of another project", "i",
                      {raw_file("i/__init__.py", ""),
                       raw_file("torch-99.0.egg-info/PKG-INFO", "Metadata-Version: 2.1\nName: torch\nVersion: 99.0\n")},
                      "WC102", "installs the metadata directory 'torch-99.0.egg-info'"));
  out.push_back(wheel(k, "a console script named ..", "i",
                      {raw_file("i/__init__.py", "def main(): pass\n"),
                       raw_file("i-1.0.dist-info/entry_points.txt", "[console_scripts]\n.. = i:main\n")},
                      "WC208", "script name '..' in [console_scripts] names the scripts directory"));
  out.push_back(wheel(k, "a name beginning with the .data directory's", "i",
                      {raw_file("i/__init__.py", ""), raw_file("i-1.0.data_x/y.py", "y = 1\n")}, "WC102",
                      "begins with the .data directory's 'i-1.0.data' without being inside it"));
  auto ios = macho_thin(0x0100000c, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path", 2);
  auto mac = macho_thin(0x0100000c, 0x000B0000, {"/usr/lib/libSystem.B.dylib"}, "@loader_path", 1);
  out.push_back(wheel(k, "an iOS Mach-O in a macOS wheel", "i",
                      {raw_file("i/_x.dylib", std::string(ios.begin(), ios.end()))}, "WC506",
                      "arm64 slice is built for iOS (LC_BUILD_VERSION platform 2; macOS is 1)", "macosx_11_0_arm64"));
  out.push_back(control(wheel(k, "a macOS Mach-O in a macOS wheel", "i",
                              {raw_file("i/_x.dylib", std::string(mac.begin(), mac.end()))}, "WC506", "built for",
                              "macosx_11_0_arm64")));
  out.push_back(control(wheel(
      k, "scripts, data and an entry point", "i",
      {raw_file("i/__init__.py", "def main(): pass\n"), raw_file("i-1.0.data/scripts/run", "#!python\nprint(1)\n"),
       raw_file("i-1.0.data/data/share/i/x.txt", "x\n"),
       raw_file("i-1.0.dist-info/entry_points.txt", "[console_scripts]\nrun-i = i:main\n")},
      "WC102", "")));
}

void platform_paths(std::vector<InstallerCase>& out) {
  const char* k = "platform paths";
  const std::vector<std::pair<const char*, std::string>> windows = {{"a trailing dot", "p/x."},
                                                                    {"a trailing space", "p/x.py "},
                                                                    {"a device name", "p/aux.py"},
                                                                    {"CON", "p/CON"},
                                                                    {"COM1", "p/com1.txt"},
                                                                    {"an alternate data stream", "p/a.py:evil"},
                                                                    {"a device name before spaces", "p/aux  .py"},
                                                                    {"LPT9", "p/Lpt9.tar.gz"}};
  const std::vector<const char*> says = {"ends in a dot or a space",
                                         "ends in a dot or a space",
                                         "device name",
                                         "device name",
                                         "device name",
                                         "alternate data stream",
                                         "device name",
                                         "device name"};
  for (size_t i = 0; i < windows.size(); ++i) {
    out.push_back(wheel(k, std::string(windows[i].first) + " (Windows)", "p", {raw_file(windows[i].second, "x\n")},
                        "WC401", says[i], "win_amd64"));
    out.push_back(warning(wheel(k, std::string(windows[i].first) + " (Linux only)", "p",
                                {raw_file(windows[i].second, "x\n")}, "WC401", says[i], "manylinux_2_17_x86_64")));
  }
  out.push_back(wheel(k, "a device name (any platform)", "p", {raw_file("p/nul.txt", "x\n")}, "WC401", "device name"));
  auto pair = std::vector<RawEntry>{raw_file("p/A.py", "a = 1\n"), raw_file("p/a.py", "a = 2\n")};
  out.push_back(wheel(k, "names equal but for case (macOS)", "p", pair, "WC401", "case-insensitive file system",
                      "macosx_11_0_arm64"));
  out.push_back(wheel(k, "names equal but for case (any)", "p", pair, "WC401", "case-insensitive file system"));
  out.push_back(warning(wheel(k, "names equal but for case (Linux only)", "p", pair, "WC401",
                              "case-insensitive file system", "manylinux_2_17_x86_64")));
  out.push_back(control(wheel(k, "plain names (Windows)", "p",
                              {raw_file("p/x.py", "x\n"), raw_file("p/aux_.py", ""), raw_file("p/com0.py", ""),
                               raw_file("p/lpt10.py", ""), raw_file("p/nu.py", "")},
                              "WC401", "", "win_amd64")));
}

// The differences the mutation harness found, each reduced to one field changed in a wheel that
// passes (the same bytes are regression seeds in fuzz/corpus/installer/).
void found_by_the_harness(std::vector<InstallerCase>& out) {
  const char* k = "found by the harness";
  auto patched = [&](std::string label, std::vector<RawEntry> files, size_t at, std::string bytes,
                     std::string message) {
    InstallerCase c = wheel(k, std::move(label), "h", files, "WC404", std::move(message));
    for (size_t i = 0; i < bytes.size(); ++i) c.bytes[at + i] = uint8_t(bytes[i]);
    return c;
  };
  // End record: signature, disk, directory disk, entries on this disk (offset 8), total entries.
  InstallerCase counts = wheel(k, "end record counts that disagree", "h", {raw_file("h/x.py", "x = 1\n")}, "WC404",
                               "entries on this disk and 4 in all");
  counts.bytes[counts.bytes.size() - 22 + 9] = 0xe2;
  out.push_back(counts);
  RawEntry carrier = raw_file("h/carrier.bin", "plain bytes\n");
  carrier.descriptor = true;
  out.push_back(patched("a descriptor entry whose local header declares another size", {carrier}, 22, le32(4352),
                        "the data descriptor flag is set and the local header declares CRC-32 0, 0 -> 4352 bytes"));
  out.push_back(control(patched("a descriptor entry whose local header declares its size", {carrier}, 22,
                                le32(uint32_t(carrier.content.size())), "the data descriptor flag is set")));
  RawEntry extra = raw_file("h/x.py", "x = 1\n");
  extra.local_extra = le16(0x5455) + le16(100) + "short";
  out.push_back(wheel(k, "a local extra field running past its block", "h", {extra}, "WC404",
                      "local header: extra field 0x5455 claims 100 bytes where 5 are left"));
  // The first entry is empty: a longer local extra length reaches into the next local record.
  out.push_back(patched("a local extra field reaching into the next record", {raw_file("h/empty.txt", "")}, 28,
                        le16(40), "begins inside the previous one"));
}

}  // namespace

std::vector<InstallerCase> installer_cases() {
  std::vector<InstallerCase> out;
  directoryness(out);
  name_decoding(out);
  flags_and_versions(out);
  symlinks(out);
  stored_local_record(out);
  line_breaks(out);
  installer_semantics(out);
  platform_paths(out);
  found_by_the_harness(out);
  return out;
}

}  // namespace wc::testing
