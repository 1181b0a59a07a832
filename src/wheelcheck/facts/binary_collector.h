// Collects binary facts while the wheel's entries stream past: a bounded prefix and tail of each
// binary are kept, fatbins are scanned on the fly, and byte ranges a parser still needs (an ELF's
// .dynstr behind a large .text) are fetched in a second, targeted read at the end. Memory stays
// bounded by the capture windows, not by entry size. Writes WheelFacts::binaries.
#pragma once

#include <memory>

#include "facts/wheel_facts.h"
#include "io/source.h"
#include "io/zip_index.h"

namespace wc {

class BinaryCollector {
 public:
  BinaryCollector(Source& src, const ZipIndex& idx, WheelFacts& facts);
  ~BinaryCollector();
  void begin_entry(const ZipEntry& z);
  void data(const uint8_t* p, size_t n);
  void end_entry(const EntryFacts& e);
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wc
