// The temporary file a writer fills beside its destination before renaming
// it over the destination (WriteFileAtomically): its name, its removal when
// the program is interrupted while it exists, and the removal of those that
// dead writers left behind.
//
// Names are `<destination>.tmp<pid>`, so that a later run can tell whether
// the writer of one is still alive.
#pragma once

#include <string>

namespace clq {

// `path` + ".tmp" + this process's id.
std::string TemporaryPathFor(const std::string& path);

// While alive, a SIGINT, SIGTERM or SIGHUP (those not ignored) removes the
// file at `temporary` with async-signal-safe calls, restores the signal's
// previous action and raises it again, so the program still dies of the
// signal. One path is watched at a time: a second guard constructed while
// one is alive, or one given an empty path, watches nothing. The destructor
// does not remove the file.
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(const std::string& temporary);
  ~TemporaryFileGuard();
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;

 private:
  bool watching_ = false;
};

// Removes the `path.tmp<pid>` files beside `path` whose process no longer
// exists (a writer killed by SIGKILL, or one that crashed). Files of live
// processes, and anything else, are left alone. Errors are ignored: this is
// tidying, not part of the write.
void RemoveStaleTemporaryFiles(const std::string& path);

}  // namespace clq
