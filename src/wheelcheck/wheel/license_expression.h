// PEP 639 License-Expression: SPDX expressions as packaging.licenses.canonicalize_license_expression
// reads them (PyPI validates uploads with it), against the SPDX tables of the policy.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wc {

using SpdxIds = std::map<std::string, std::string, std::less<>>;  // lower-case id -> SPDX spelling

struct CanonicalLicense {
  std::optional<std::string> canonical;  // "MIT AND (Apache-2.0 OR BSD-2-Clause)"; empty when invalid
  std::string error;                     // packaging's reason when invalid
};

// Case-insensitive ids, `WITH` exceptions, `AND` / `OR`, parentheses (200 deep at most, CPython's
// tokenizer limit, as packaging), `LicenseRef-[A-Za-z0-9.-]+` (spelled as first written) and a `+`
// after a listed license id. DocumentRef- and AdditionRef- are not accepted: packaging rejects them.
CanonicalLicense canonicalize_license_expression(std::string_view raw, const SpdxIds& licenses,
                                                 const SpdxIds& exceptions);

}  // namespace wc
