// A validator for the JSON Schema subset the policy schema uses, so the schema shipped for editors
// is also the one the tool enforces (one source of truth): type, enum, const, properties,
// patternProperties, additionalProperties, required, items, minimum, exclusiveMinimum, minItems,
// pattern, anyOf, $ref into #/$defs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc {

struct SchemaIssue {
  std::string pointer;
  std::string message;
};

std::vector<SchemaIssue> schema_validate(const nlohmann::json& instance, const nlohmann::json& schema);

}  // namespace wc
