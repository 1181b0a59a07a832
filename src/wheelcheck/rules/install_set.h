// Which wheels are installed together: an install set is one platform (architecture and libc
// flavour, or platform-independent) and one Python. A library needed by a binary resolves only
// against wheels of its own set: an aarch64 cusolver wheel does not find x86_64 cublas.
#pragma once

#include <vector>

#include "facts/wheel_facts.h"

namespace wc {

struct InstallSet {
  std::vector<const WheelFacts*> wheels;  // includes the wheel being judged
};

// True when some interpreter could install both wheels into one environment.
bool installable_together(const WheelFacts& a, const WheelFacts& b);
// The same from the file names alone (platform and Python tags).
bool installable_together(const WheelFilename& a, const WheelFilename& b);
// The wheels of `all` installable together with `f` (f itself included).
InstallSet install_set_for(const WheelFacts& f, const std::vector<WheelFacts>& all);

}  // namespace wc
