// Error types of clq. Three kinds of failure, three mechanisms:
//  - user errors (bad SQL, a bad file, a selector that matches nothing, a
//    device or host-memory limit exceeded) are exceptions derived from clq::Error, each with
//    one clear message; the program prints it and exits non-zero;
//  - broken invariants are InternalError (a bug in clq, never the user's fault);
//  - expected outcomes (a cuckoo insert that needs a rebuild, a device without
//    fp64) are return values, not exceptions.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace clq {

// Base of every error clq reports to its user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Input the user gave is unusable: a selector, a flag value, a file.
class InvalidInputError : public Error {
 public:
  using Error::Error;
};

// A file is missing, truncated, corrupt or of an unknown version.
class FileError : public InvalidInputError {
 public:
  using InvalidInputError::InvalidInputError;
};

// A request exceeds what the device can do (allocation over its limits, a
// feature it lacks) and no fallback exists.
class DeviceLimitError : public Error {
 public:
  using Error::Error;
};

// A request needs more of the host than clq may take: more host memory than
// the budget (common/host_memory.hpp). The message names what needs it, how
// much, the limit and the option that sets it.
class ResourceLimitError : public Error {
 public:
  using Error::Error;
};

// A SQL statement could not be parsed or bound. `offset` is the byte offset
// into the statement text where the problem is (npos when unknown).
class SqlError : public Error {
 public:
  SqlError(const std::string& message, std::size_t offset = std::string::npos)
      : Error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// A bug in clq: an invariant that should hold did not.
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message) : Error("internal error: " + message) {}
};

#define CLQ_CHECK(condition, message)                                                            \
  do {                                                                                           \
    if (!(condition))                                                                            \
      throw ::clq::InternalError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + \
                                 (message));                                                     \
  } while (0)

}  // namespace clq
