// Wheel variants (PEP 825): the variant label of a file name, `*.dist-info/variant.json` and the
// index file `{name}-{version}-variants.json`, in every schema generation that has been published:
// wheelnext's production ones (unversioned, v0.0.2, v0.0.3), PEP 825's 0.1.0/0.1.1 and the
// providers draft's 0.2.0. Parsed into one shape; what a schema forbids or requires is reported.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wc {

enum class VariantSchema { unknown, wheelnext, v0_0_2, v0_0_3, pep825_0_1_0, pep825_0_1_1, providers_0_2_0 };
const char* variant_schema_name(VariantSchema s);  // "v0.0.3", "0.1.1", ...

// namespace -> feature -> values, in file order.
using VariantProperties = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

struct VariantDocument {
  std::string schema_url;
  VariantSchema schema = VariantSchema::unknown;
  std::vector<std::string> namespace_priority;                       // default-priorities.namespace
  std::map<std::string, std::vector<std::string>> feature_priority;  // default-priorities.feature (0.1.0 and older)
  std::map<std::string, std::map<std::string, std::vector<std::string>>> property_priority;
  std::vector<std::string> providers;                 // namespaces with a provider entry
  VariantProperties static_properties;                // v0.0.3 top level, 0.2.0 per provider
  std::map<std::string, VariantProperties> variants;  // label -> properties
  std::vector<std::string> labels_in_order;           // as written
  std::vector<std::string> errors;                    // WC802 errors: what the schema (or PEP 825's prose) forbids
  std::vector<std::string> warnings;                  // WC802 warnings: draft schemas, lists a schema wants sorted
};

// Parses and validates one document. `file` names it in messages.
VariantDocument parse_variant_document(std::string_view text);

// "nvidia :: sm_arch :: 90_real" for every property of `p`, sorted.
std::vector<std::string> variant_property_strings(const VariantProperties& p);
// One line per namespace: "nvidia: cuda_version_lower_bound 12.8; sm_arch 90_real 100_real".
std::string describe_variant_properties(const VariantProperties& p);

// In words, the machines an installer would give this variant (the providers' rules: NVIDIA counts
// only the highest compute capability X.Y, which accepts X{Y..0}_real and X0_virtual).
std::string describe_variant_selection(const VariantProperties& p);

bool is_variant_label(std::string_view s);       // ^[0-9a-z_.]+$
bool is_variant_name_token(std::string_view s);  // namespace or feature: ^[a-z0-9_]+$
bool is_variant_value(std::string_view s);       // ^[a-z0-9_.]+$

// The NVIDIA provider's selection for one machine (nvidia-variant-provider's rules): which
// values of each feature a GPU of compute capability `cc` ("9.0") with a driver supporting CUDA
// `driver_cuda` ("12.8") accepts, most preferred first. Empty when the provider reports nothing
// (no driver, or one outside 11.0 to 15.20).
std::map<std::string, std::vector<std::string>> nvidia_supported_values(const std::string& cc,
                                                                        const std::string& driver_cuda);

}  // namespace wc
