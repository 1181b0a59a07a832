#include "report/stored_json.h"

#include <stdexcept>
#include <string>

namespace wc {

nlohmann::json StoredJson::get() const {
  if (!file_) return value_;
  std::string bytes = file_->read(place_);
  try {
    return nlohmann::json::from_cbor(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("the scratch file in " + file_->dir() + " holds no record at " +
                             std::to_string(place_.offset) + ": " + e.what());
  }
}

void StoredJson::park(const std::shared_ptr<AppendFile>& file) {
  if (file_ || value_.is_null() || !file) return;
  // CBOR keeps every string's bytes as they were (names from archives need not be UTF-8; the
  // report replaces what is not only as it writes), and is smaller and quicker to read than text.
  std::string bytes;
  nlohmann::json::to_cbor(value_, bytes);
  try {
    place_ = file->append(bytes);
  } catch (const std::runtime_error&) {
    return;  // kept in memory: the report is the same
  }
  file_ = file;
  nlohmann::json().swap(value_);
}

}  // namespace wc
