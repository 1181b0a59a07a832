// Wheel variants (PEP 825), per wheel: WC801-WC805.
#pragma once

#include <optional>

#include "facts/wheel_facts.h"
#include "wheel/variant.h"

namespace wc {

class FindingSink;

// The wheel's *.dist-info/variant.json, parsed (nullopt when the wheel has none).
std::optional<VariantDocument> wheel_variant_document(const WheelFacts& f);
void variant_rules(const WheelFacts& f, FindingSink& s);

}  // namespace wc
