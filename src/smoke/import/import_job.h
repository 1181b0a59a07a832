// One request to wheelsmoke import's probe (src/smoke/import/import_probe.py), in a fresh
// interpreter leading a session of its own, bounded every way an artifact's import can misbehave:
// a hang (killed with its process group at the limit, after the probe printed where it stood), a
// crash (the signal), megabytes of output (counted, only the tail kept), a forked child that keeps
// the pipes open (the final line decides, not end of file; the child is killed and said), threads
// that keep the interpreter from exiting (the exit is waited for a short grace, then killed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wc::smoke {

struct JobLimits {
  double seconds = 120;               // the whole request, import included
  double exit_grace = 5;              // after the final line, for the interpreter to exit
  uint64_t answer_bytes = 64u << 20;  // protocol lines, all together
};

struct JobOutcome {
  std::vector<nlohmann::json> lines;  // every protocol line, in order (the last one has "done" when done)
  bool done = false;                  // the final line arrived
  bool timed_out = false;             // killed at the limit before the final line
  int signal = 0;                     // killed by this signal (0: it exited, or we killed it)
  int exit_code = -1;                 // its exit status when it exited by itself
  bool exit_hung = false;             // the final line came, but it did not exit within the grace
  bool children_left = false;         // processes of its session outlived it (killed)
  std::string protocol_error;         // a line that is not a JSON object, or too much of them
  uint64_t output_bytes = 0;          // what the imported code printed (stdout and stderr)
  std::string output_tail;            // its last lines (64 KiB at most kept)
  double seconds = 0;
  // The final line (an empty object when it never came).
  const nlohmann::json& final_line() const;
  // "its last words: ..." from the output's tail, or "".
  std::string last_words(size_t max_chars = 400) const;
  // Where the Python stack stood in the last dump faulthandler printed (a crash, or the probe's
  // dump shortly before the limit): its innermost frame outside the import machinery and the
  // probe ("File \"/x/pkg/__init__.py\", line 3 in <module>"), or "".
  std::string stuck_at() const;
};

// Runs `python -u script` with `request` on its stdin; `env` is its environment (null: ours).
// Never throws for what the child does; a child that cannot start is an outcome with
// protocol_error set.
JobOutcome run_import_job(const std::string& python, const std::string& script, const nlohmann::json& request,
                          const JobLimits& limits, const std::vector<std::string>* env);

// The probe's source (what wheelsmoke writes for the interpreter to run).
const char* import_probe_source();

}  // namespace wc::smoke
