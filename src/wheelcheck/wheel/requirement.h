// PEP 508 dependency specifiers as they appear in Requires-Dist: name, extras, version specifier
// or URL, and the environment marker, with marker evaluation against the environment a wheel's
// tags imply (a manylinux x86_64 cp312 wheel runs where sys_platform == "linux",
// platform_machine == "x86_64", python_version == "3.12"). A hand-written, linear scanner with a
// bounded parenthesis depth: Requires-Dist lines are attacker-controlled.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wheel/filename.h"

namespace wc {

// Three-valued: a marker naming a variable the tags do not determine evaluates to `unknown`.
enum class Truth { no, yes, unknown };

struct MarkerNode;  // the parsed expression

struct Requirement {
  std::string name;            // as written
  std::string canonical_name;  // PEP 503
  std::vector<std::string> extras;
  std::string specifier;  // ">=1.0,<2" (empty when none or a URL)
  std::string url;        // "name @ url"
  std::string marker_text;
  std::shared_ptr<const MarkerNode> marker;  // null when none
};

// nullopt with *error set when `text` is not a PEP 508 requirement.
std::optional<Requirement> parse_requirement(std::string_view text, std::string* error = nullptr);

// Marker variables (python_version, sys_platform, platform_machine, extra, ...) with the values
// they take; variables absent from the map are unknown.
using MarkerEnvironment = std::map<std::string, std::string>;

// The environment every installer of this wheel shares, read from its tags (only what all of its
// tags agree on). `extra` is "" (no extras requested).
MarkerEnvironment environment_for(const WheelFilename& w);

Truth evaluate(const Requirement& r, const MarkerEnvironment& env);

// PEP 825's set-valued markers (variant_namespaces, variant_features, variant_properties, used
// only with `in` / `not in`) from a variant's property strings ("nvidia :: sm_arch :: 90_real").
void add_variant_environment(MarkerEnvironment& env, const std::vector<std::string>& properties);
// The (variable, literal) pairs a marker compares variant variables with: ("variant_label",
// "cuda13.0"), ("variant_namespaces", "nvidia"), ...
std::vector<std::pair<std::string, std::string>> variant_marker_literals(const Requirement& r);

}  // namespace wc
