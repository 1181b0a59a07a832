#include "smoke/artifact/session.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

extern char** environ;

namespace wc::smoke {

SessionChild spawn_session(const std::vector<std::string>& argv_in, const std::vector<std::string>* env) {
  // O_CLOEXEC from the start: a thread of ours spawning at the same moment inherits none of them.
  int to_child[2], from_child[2], err_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot create pipes: " + std::string(std::strerror(errno)));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]), close(to_child[1]);
    throw std::runtime_error("cannot create pipes: " + std::string(std::strerror(errno)));
  }
  if (pipe2(err_child, O_CLOEXEC) != 0) {
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
    throw std::runtime_error("cannot create pipes: " + std::string(std::strerror(errno)));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_child[1], 2);
  for (int fd : {to_child[1], from_child[0], err_child[0]}) posix_spawn_file_actions_addclose(&fa, fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A session (and process group) of its own, and SIGPIPE at its default there: we ignore it, and
  // an ignored signal would stay ignored across exec.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = argv_in, envs = env ? *env : std::vector<std::string>();
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  SessionChild c;
  int rc = posix_spawnp(&c.pid, args.at(0).c_str(), &fa, &attr, argv.data(), env ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(to_child[0]);
  close(from_child[1]);
  close(err_child[1]);
  c.in = to_child[1], c.out = from_child[0], c.err = err_child[0];
  fcntl(c.err, F_SETFL, O_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);
  c.pgid = c.pid;
  if (rc != 0) {
    for (int fd : {c.in, c.out, c.err}) close(fd);
    throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  }
  return c;
}

void kill_session(SessionChild& c) {
  if (c.pgid > 0) kill(-c.pgid, SIGKILL), c.pgid = -1;  // forked children too, even after the leader was reaped
  if (c.pid <= 0) return;
  kill(c.pid, SIGKILL);
  waitpid(c.pid, nullptr, 0);
  c.pid = -1;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(sig);
  }
}

}  // namespace wc::smoke
