// Can this artifact's GPU code run on a target (declared offline, or the real device)?
#pragma once

#include <string>
#include <vector>

#include "facts/wheel_facts.h"
#include "rules/rules.h"
#include "smoke/driver.h"
#include "smoke/gpu_catalog.h"

namespace wc::smoke {

// Offline analysis: per binary with GPU code, SASS for the target or PTX it can JIT (PTX ISA vs
// the driver), and the CUDA runtime's driver floor. Findings use the WS1xx rules.
void compat_findings(const WheelFacts& f, const Target& t, FindingSink& s);

// On a device: loads every fatbin container of every binary through the driver (eager loading),
// one container in memory at a time; failures become WS104 findings.
void load_containers(const std::string& wheel, const WheelFacts& f, Driver& drv, int device, FindingSink& s);

}  // namespace wc::smoke
