#include "storage/temporary_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string_view>

namespace clq {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr std::size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);

// What the handler reads. It may run on any thread at any moment, so it
// touches only these, set before `watched_path_set` is raised and after it
// is cleared.
char watched_path[4096];
volatile std::sig_atomic_t watched_path_set = 0;
struct sigaction previous_actions[kSignalCount];
bool installed[kSignalCount];

// Serialises guards (the handler itself takes no lock).
std::mutex guard_mutex;
bool guard_alive = false;

// Only async-signal-safe calls: unlink, sigaction, raise.
void RemoveAndReraise(int signal) {
  if (watched_path_set != 0) ::unlink(watched_path);
  for (std::size_t i = 0; i < kSignalCount; ++i)
    if (kSignals[i] == signal && installed[i]) ::sigaction(signal, &previous_actions[i], nullptr);
  // Blocked until the handler returns, then delivered with the restored action.
  ::raise(signal);
}

}  // namespace

std::string TemporaryPathFor(const std::string& path) {
  return path + ".tmp" + std::to_string(::getpid());
}

TemporaryFileGuard::TemporaryFileGuard(const std::string& temporary) {
  const std::lock_guard lock(guard_mutex);
  if (temporary.empty() || guard_alive || temporary.size() >= sizeof(watched_path)) return;
  guard_alive = watching_ = true;
  std::memcpy(watched_path, temporary.c_str(), temporary.size() + 1);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  watched_path_set = 1;
  for (std::size_t i = 0; i < kSignalCount; ++i) {
    installed[i] = false;
    struct sigaction current {};
    // An ignored signal (nohup's SIGHUP) stays ignored: it ends nothing.
    if (::sigaction(kSignals[i], nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = RemoveAndReraise;
    sigemptyset(&action.sa_mask);
    installed[i] = ::sigaction(kSignals[i], &action, &previous_actions[i]) == 0;
  }
}

TemporaryFileGuard::~TemporaryFileGuard() {
  if (!watching_) return;
  const std::lock_guard lock(guard_mutex);
  watched_path_set = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  for (std::size_t i = 0; i < kSignalCount; ++i)
    if (installed[i]) ::sigaction(kSignals[i], &previous_actions[i], nullptr);
  guard_alive = false;
}

void RemoveStaleTemporaryFiles(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path destination(path);
  const std::string prefix = destination.filename().string() + ".tmp";
  const fs::path directory =
      destination.parent_path().empty() ? fs::path(".") : destination.parent_path();
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view digits = std::string_view(name).substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(digits)));
    // ESRCH: no such process. EPERM means it lives under another user.
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

}  // namespace clq
