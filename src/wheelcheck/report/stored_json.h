// A JSON value a report item carries that a long run keeps in a scratch file until the report is
// written: a wheel's release record (~15 KB of JSON a wheel on average, its binary summaries
// mostly), held as a tree for each wheel, was most of what a 400-wheel run's memory grew by.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "util/scratch_file.h"

namespace wc {

// A JSON value in memory, or parked (as CBOR) in a scratch file that it keeps open until the
// value is asked for.
class StoredJson {
 public:
  StoredJson() = default;
  StoredJson(nlohmann::json v) : value_(std::move(v)) {}  // implicit, as the json it holds
  bool is_null() const { return !file_ && value_.is_null(); }
  bool parked() const { return file_ != nullptr; }
  // The value, read back when parked: std::runtime_error naming the file when that fails.
  nlohmann::json get() const;
  // Moves the value into `file` (safe from several threads at once); it stays in memory when the
  // file cannot take it. A null value stays.
  void park(const std::shared_ptr<AppendFile>& file);

 private:
  nlohmann::json value_;
  std::shared_ptr<AppendFile> file_;
  AppendFile::Place place_;
};

}  // namespace wc
