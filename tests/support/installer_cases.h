// One crafted archive per way wheelcheck's reading could differ from pip's (issue 28): directory
// attributes, name decoding, flags and versions zipfile refuses, symlinks from any host, a local
// record inside a STORED entry, line breaks in names and .pth files, installer semantics, and
// paths other platforms collapse. Each comes with its exact finding, and each class with controls
// that must pass: tests/installer_test.cc checks both and runs every one through the differential
// harness; fuzz_corpus_test.cc seeds the `installer` fuzz target with them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/finding.h"

namespace wc::testing {

struct InstallerCase {
  std::string klass;  // "directory-ness", "name decoding", ...
  std::string label;
  std::string filename;
  std::vector<uint8_t> bytes;
  std::string rule;     // the finding it must produce (a control: must not produce)
  std::string message;  // a substring of that finding's message
  Severity severity = Severity::error;
  bool control = false;
};

std::vector<InstallerCase> installer_cases();

}  // namespace wc::testing
