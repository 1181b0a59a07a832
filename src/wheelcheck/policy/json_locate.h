// Where each value of a JSON document starts (line), keyed by JSON pointer. nlohmann::json keeps no
// positions, and policy errors must name the line an editor jumps to.
#pragma once

#include <map>
#include <string>

namespace wc {

std::map<std::string, int> json_pointer_lines(const std::string& text);
std::string json_pointer_escape(const std::string& key);

}  // namespace wc
