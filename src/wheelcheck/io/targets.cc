#include "io/targets.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace wc {

namespace fs = std::filesystem;

static bool is_url(const std::string& t) { return t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0; }

std::vector<std::string> expand_targets(const std::vector<std::string>& targets) {
  std::vector<std::string> out;
  for (const auto& t : targets) {
    if (is_url(t)) {
      out.push_back(t);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(t, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(t, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".whl") found.push_back(it->path().string());
      }
      if (found.empty()) throw std::runtime_error(t + ": no *.whl files in this directory");
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(t, ec)) {
      out.push_back(t);
    } else {
      throw std::runtime_error(t + ": no such file or directory");
    }
  }
  return out;
}

std::string target_basename(const std::string& target) {
  std::string path = target;
  if (is_url(target)) {
    path = path.substr(0, path.find_first_of("?#"));
    std::string decoded;
    for (size_t i = 0; i < path.size(); ++i) {
      if (path[i] == '%' && i + 2 < path.size() && std::isxdigit(static_cast<unsigned char>(path[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
        decoded += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += path[i];
      }
    }
    path = decoded;
  }
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace wc
