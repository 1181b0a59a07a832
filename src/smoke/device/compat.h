// Can this artifact's GPU code run on a target (declared offline, or the real device)?
#pragma once

#include <string>
#include <vector>

#include "facts/wheel_facts.h"
#include "rules/rules.h"
#include "smoke/device/driver.h"
#include "smoke/device/gpu_catalog.h"
#include "wheel/variant.h"

namespace wc::smoke {

// Offline analysis: per binary with GPU code, SASS for the target or PTX it can JIT (PTX ISA vs
// the driver), and the CUDA runtime's driver floor. Findings use the WS1xx rules.
void compat_findings(const WheelFacts& f, const Target& t, FindingSink& s);

// On a device: loads every fatbin container of every binary through the driver (eager loading),
// one container in memory at a time; failures become WS104 findings.
void load_containers(const std::string& wheel, const WheelFacts& f, Driver& drv, int device, FindingSink& s);

// PEP 825: what an installer picks among the variant wheels of one release for one machine.
struct VariantCandidate {
  std::string filename;
  WheelFilename name;
  std::optional<VariantDocument> doc;  // the wheel's variant.json
};
struct VariantSelection {
  std::string project, version, tags;  // tags: python-abi-platform of the group
  std::string selected;                // the wheel's file name, "" when none is compatible
  std::vector<std::string> order;      // compatible wheels, most preferred first
  std::vector<std::string> incompatible;
};
// Emulates the NVIDIA provider on `t` (its compute capability and driver; without a driver the
// provider reports nothing, as the plugin does) plus the static properties the files declare, and
// PEP 825's ordering: default-priorities, the provider's value order, the null variant last, and
// wheels without a label after every variant. Groups without a variant wheel are left out.
std::vector<VariantSelection> select_variants(const std::vector<VariantCandidate>& wheels, const Target& t);

}  // namespace wc::smoke
