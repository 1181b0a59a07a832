// A run's spill file: what the install-set rules read of each wheel (its entries and binaries, as
// keep_for_install_sets() leaves them), parked on disk between the wheel's own judgement and its
// set's, so that a run's memory does not grow with the number of wheels it reads. The file has no
// name (O_TMPFILE in $TMPDIR, or one unlinked at once): nothing is left behind, whatever ends the
// run.
#pragma once

#include <cstdint>
#include <string>

#include "facts/wheel_facts.h"
#include "util/scratch_file.h"

namespace wc {

class FactsSpill {
 public:
  // Where one wheel's record lies in the file.
  using Place = AppendFile::Place;
  // Throws std::runtime_error naming the folder when no file can be made there.
  FactsSpill();

  // Writes f's entries and binaries (every field) and empties them: until restore(), f holds
  // neither (find_entry() finds nothing; installs() throws). Safe to call from several threads at
  // once.
  Place park(WheelFacts& f);
  // Puts back what park() took from f, field for field. Throws std::runtime_error when the file
  // cannot be read back.
  void restore(WheelFacts& f, Place p) const;
  // Empties f's entries and binaries again (they are in the file already).
  static void unload(WheelFacts& f);
  uint64_t bytes() const { return file_.bytes(); }  // the file's size

 private:
  AppendFile file_;
};

// The same record without a file: what park() writes and restore() reads (tests).
std::string spill_record(const WheelFacts& f);
void read_spill_record(const std::string& record, WheelFacts& f);

}  // namespace wc
