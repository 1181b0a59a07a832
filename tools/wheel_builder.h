// Writes wheels at test time (and for the demo) with libarchive's zip writer: a correct wheel by
// default, with knobs to break any part of it on purpose.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wc::testing {

struct BuiltEntry {
  std::string path;
  std::string content;
  bool store = false;          // STORED instead of DEFLATED
  std::string symlink_target;  // non-empty: a symlink entry
  bool in_record = true;
};

class WheelBuilder {
 public:
  WheelBuilder(std::string name, std::string version, std::string tag = "py3-none-any");

  WheelBuilder& add(const std::string& path, std::string content, bool store = false);
  WheelBuilder& add_unrecorded(const std::string& path, std::string content);
  WheelBuilder& add_symlink(const std::string& path, const std::string& target);
  WheelBuilder& metadata(std::string text);    // whole METADATA
  WheelBuilder& wheel_file(std::string text);  // whole WHEEL
  WheelBuilder& purelib(bool pure);
  WheelBuilder& requires_python(std::string spec);
  WheelBuilder& requires_dist(std::string req);
  WheelBuilder& record_text(std::string text);  // replace the generated RECORD
  // Edits the generated RECORD rows (path, hash, size) before they are written.
  WheelBuilder& edit_record(std::function<void(std::vector<std::vector<std::string>>&)> f);
  WheelBuilder& dist_info_name(std::string dir);  // default {escaped name}-{version}.dist-info
  WheelBuilder& no_record();
  WheelBuilder& no_wheel_file();
  WheelBuilder& no_metadata();
  WheelBuilder& filename(std::string f);  // override the computed file name

  std::string dist_info() const;
  std::string filename() const;
  std::vector<uint8_t> build() const;
  // Writes build() into dir/filename(); returns the path.
  std::string write(const std::string& dir) const;

 private:
  std::string name_, version_, tag_;
  std::vector<BuiltEntry> entries_;
  std::optional<std::string> metadata_, wheel_, record_, dist_info_, filename_;
  std::vector<std::string> extra_metadata_;
  bool pure_ = true, with_record_ = true, with_wheel_ = true, with_metadata_ = true;
  std::function<void(std::vector<std::vector<std::string>>&)> edit_;
};

// Zip bytes from a list of entries, no wheel logic (for hostile archives).
std::vector<uint8_t> build_zip(const std::vector<BuiltEntry>& entries);
std::string sha256_record(const std::string& content);  // "sha256=..." in RECORD form
std::string csv_field(const std::string& s);            // quoted as Python's csv module would
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> read_file(const std::string& path);

}  // namespace wc::testing
