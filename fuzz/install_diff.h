// The differential harness of issue 28 ("the gate reads what the installer reads"): what one
// archive installs, as wheelcheck's index says (install_map()) and as other readers would write it:
// libarchive's seekable and streaming zip readers here, Python's zipfile with pypa/installer in
// tests/installer_test.cc (tests/tools/installer_oracle.py). A difference on a wheel wheelcheck
// does not refuse is a gate bypass. Shared by the tests and the `installer` fuzz target.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wc::fuzz {

// What one reader installs: install path (InstallTarget::key()) -> sha256 (RECORD form), or why
// it refuses the archive.
struct InstallReading {
  std::string refused;                       // non-empty: no install
  std::map<std::string, std::string> files;  // what lands where
  std::vector<std::string> notes;            // what no file map shows: a link, a path that escapes
};

// wheelcheck under the default policy: refused when it reports any error (`why` gets them all).
InstallReading wheelcheck_reading(const std::vector<uint8_t>& zip, const std::string& filename,
                                  std::string* why = nullptr);
// libarchive's reader over the same bytes: the seekable one (central directory) or the streaming
// one (local headers in file order). Directories and the top-level dist-info RECORD are left out,
// as install_map() leaves them; links and other non-regular entries are notes.
InstallReading libarchive_reading(const std::vector<uint8_t>& zip, bool streaming);

// The difference between two readings, smallest first: "" when they agree. Each differing path
// with both sides' digests (or "absent"), at most `max_lines` of them.
std::string reading_difference(const InstallReading& gate, const InstallReading& other, const std::string& other_name,
                               size_t max_lines = 8);

}  // namespace wc::fuzz
