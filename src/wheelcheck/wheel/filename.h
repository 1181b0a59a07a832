// Wheel filenames (PEP 427/491 and the binary distribution format spec) and their tags (PEP 425,
// with the platform tag families of PEP 600, 656, 730, 738 and PyPI's allow-list).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wheel/version.h"

namespace wc {

struct Tag {
  std::string python, abi, platform;
  std::string str() const { return python + "-" + abi + "-" + platform; }
  bool operator<(const Tag& o) const { return str() < o.str(); }
  bool operator==(const Tag& o) const = default;
};

struct BuildTag {
  std::string number;  // decimal digits, leading zeros removed ("0" for zero)
  std::string suffix;
};

struct WheelFilename {
  std::string raw;
  bool valid = false;
  std::string error;  // why it is not valid (WC101)
  std::string name;   // as written in the file name
  std::string canonical_name;
  std::string version_text;
  std::optional<Version> version;
  std::optional<BuildTag> build;
  std::optional<std::string> variant_label;  // PEP 825: the optional last part ("cu128")
  std::vector<std::string> python_tags, abi_tags, platform_tags;
  std::vector<Tag> tags;  // expanded (cartesian product), in file order
  // Spelling problems that installers tolerate but the spec and PyPI do not (WC107).
  std::vector<std::string> style_problems;
};

WheelFilename parse_wheel_filename(std::string_view filename);
// `re.sub(r"[-_.]+", "-", name).lower()` (PEP 503).
std::string canonicalize_name(std::string_view name);
// The escaped form used in wheel and dist-info names: runs of -_. become '_', lower case.
std::string escape_name(std::string_view name);
// PEP 508 / core metadata `Name` grammar.
bool is_valid_project_name(std::string_view name);

enum class PlatformFamily { any, manylinux, musllinux, linux, macos, windows, ios, android, other };

struct PlatformTag {
  PlatformFamily family = PlatformFamily::other;
  std::string arch;          // x86_64, aarch64, arm64, universal2, amd64, ...
  int major = 0, minor = 0;  // glibc / musl / macOS version, API level for android
  // A shape PyPI's rules take (families, version rules); which architectures PyPI's upload takes
  // is the policy's pypi_platforms data, judged by rules/platform_tag.h's pypi_platform_refusal().
  bool pypi_accepted = false;
  std::string problem;  // why it is not a valid tag of its family
};

PlatformTag classify_platform(std::string_view tag);
const char* family_name(PlatformFamily f);

}  // namespace wc
