// Binary table files (.clq): one table, columnar, checksummed.
//
// Layout (little-endian):
//   offset 0   magic "CLQTABLE" (8 bytes)
//          8   u32 format version (kTableFileVersion)
//         12   u32 H: length of the header body
//         16   header body: u64 row count; u32 name length, name bytes;
//              u32 column count; per column: u32 name length, name bytes,
//              u8 DataType, u32 width (bytes per value), u8 flags (bit 0:
//              nullable; versions 2 and 3), u8 Logical, u8 precision, u8
//              scale (DATE on INT32 and DECIMAL(p,s) on INT64; all zero for
//              none; version 3 only)
//     16 + H   u64 Checksum64 of bytes [0, 16 + H)
//   then per column, in schema order: rows * width bytes of values (CHAR
//   values NUL-padded), then u64 Checksum64 of those bytes; for a nullable
//   column, then rows bytes of NULL map (1 = NULL, 0 = a value) and u64
//   Checksum64 of them. Nothing follows.
//
// Writing writes version 3 where a column is DATE or DECIMAL, else version 2;
// reading takes version 1 (no flags, no
// NULL maps: every column NOT NULL), version 2 (no logical types) and 3.
//
// Reading validates every length against the file size before allocating,
// so a missing, truncated, corrupt, foreign or newer file is a FileError that
// names the file and the problem, never a crash, wrong data or a huge
// allocation. Contents no clq table has are refused the same way, checksums
// notwithstanding: no columns, two columns of one name (case-insensitive), a
// NaN, a NUL byte inside a CHAR value, a flag bit this version does not
// define, a NULL map byte other than 0 and 1, a nullable column whose map
// holds no NULL (the writer marks a column nullable only when it holds one,
// as tables do), and a NULL row whose value bytes are not all zero. The
// last is refused rather than zeroed so that a file has one reading and
// the writer gives back the bytes it was read from; every check of values
// (NaN, NUL in CHAR) then also holds at NULL rows, whose zero bytes pass
// it. Functions are reentrant; tables
// returned own their data.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "storage/table.hpp"

namespace clq {

inline constexpr std::uint32_t kTableFileVersion = 3;
// The oldest version this clq reads.
inline constexpr std::uint32_t kOldestTableFileVersion = 1;

// Writes the table to a temporary file beside `path`, then renames it over
// `path`, so readers never see a half-written file. When `path` exists and
// is not a regular file (/dev/null, a pipe), writes to it directly. Throws
// FileError.
void WriteTableFile(const Table& table, const std::string& path);

// Creates `path` through `write` (given the open file and `path`, for
// messages) the way WriteTableFile does: a temporary file renamed over
// `path` when complete, or `path` itself when it is not a regular file. The
// temporary file is removed if `write` throws or the program is interrupted
// (storage/temporary_file.hpp), and those of writers of `path` that died are
// removed first. Throws FileError naming `path`.
void WriteFileAtomically(const std::string& path,
                         const std::function<void(std::FILE*, const std::string&)>& write);

// Writes the table file's bytes to an open stream (which needs no seeking:
// standard output will do); `name` names it in errors. Throws FileError.
void WriteTableContents(const Table& table, std::FILE* file, const std::string& name);

struct TableFileInfo {
  std::string name;  // as stored
  Schema schema;
  RowCount rows = 0;
};

// Validates the header and the file size without reading the column data.
TableFileInfo ReadTableFileInfo(const std::string& path);

// The whole table, every checksum verified. `name` names the returned table;
// empty keeps the stored name. Throws ResourceLimitError, before reading the
// columns, when the table does not fit `host_memory` (common/host_memory.hpp).
TablePtr ReadTableFile(const std::string& path, std::string name = {},
                       std::uint64_t host_memory = kUnlimitedHostMemory);

// ReadTableFile from an open, seekable stream that holds the file's bytes
// and nothing else (fuzzers read from memory through fmemopen); `source`
// names it in errors.
TablePtr ReadTableContents(std::FILE* file, const std::string& source, std::string name = {},
                           std::uint64_t host_memory = kUnlimitedHostMemory);

}  // namespace clq
