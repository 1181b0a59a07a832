#pragma once

#include <string>
#include <vector>

namespace wc {

// Expands command-line targets: directories (recursively, *.whl, sorted), files and URLs as given.
// Throws std::runtime_error naming the target that does not exist or holds no wheels.
std::vector<std::string> expand_targets(const std::vector<std::string>& targets);
// The file name a target's wheel name is read from: the last path component, URL-decoded, with
// any query or fragment removed.
std::string target_basename(const std::string& target);

}  // namespace wc
