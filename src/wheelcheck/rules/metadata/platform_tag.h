// The tag a Linux wheel's contents justify (auditwheel show's headline): the most compatible
// manylinux or musllinux tag whose level allows the binaries' architecture, symbol versions,
// undefined symbols (per-level blacklists, PyFPE_jbuf) and needed libraries (those not shipped in
// the wheel must be on the level's whitelist). None when no portable tag fits, e.g. a library from
// outside the wheel is needed, and then `why` says so.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "facts/wheel_facts.h"
#include "policy/policy.h"

namespace wc {

struct JustifiedTag {
  bool applies = false;            // a Linux wheel with ELF binaries
  std::optional<std::string> tag;  // "manylinux_2_17_x86_64"
  std::string why;                 // when tag is empty: the first reason none fits
};

JustifiedTag justified_platform_tag(const WheelFacts& f, const Policy& p);

// Why PyPI's upload refuses platform tag `tag` (warehouse's _valid_platform_tag over the
// policy's pypi_platforms data), or "" when it accepts it (or the policy carries no such data).
std::string pypi_platform_refusal(std::string_view tag, const PypiPlatforms& data);
// The regexes of legacy.py that pypi_platform_refusal() implements, by family: a test holds them
// against the data's, so a changed regex upstream fails it instead of drifting silently.
const std::map<std::string, std::string>& pypi_platform_regexes_implemented();

}  // namespace wc
