// A child process leading a session of its own (so everything it forks can be killed with it),
// its stdin, stdout and stderr on pipes. wheelsmoke's probes run this way: an artifact's code can
// hang, crash, flood its output or fork, and none of it may outlive or stall wheelsmoke.
#pragma once

#include <string>
#include <vector>

namespace wc::smoke {

struct SessionChild {
  int pid = -1;                     // the leader; -1 once reaped
  int pgid = -1;                    // its session and process group (the leader's pid)
  int in = -1, out = -1, err = -1;  // our ends: its stdin, stdout, stderr (close-on-exec; err non-blocking)
};

// Starts argv[0] (searched on PATH) with `env` as its environment (null: this process's). Throws
// std::runtime_error naming the program when it cannot start. SIGPIPE is ignored from then on in
// this process (a child that died is an error answer, not the end of wheelsmoke) and at its default
// in the child.
SessionChild spawn_session(const std::vector<std::string>& argv, const std::vector<std::string>* env = nullptr);

// SIGKILL to the whole session's process group, then the leader reaped (if not yet): pid and pgid -1.
void kill_session(SessionChild& c);

// "SIGSEGV" for 11; "signal N" for one without a name here.
std::string signal_name(int sig);

}  // namespace wc::smoke
