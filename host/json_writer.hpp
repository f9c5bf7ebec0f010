// A minimal streaming JSON writer (objects, arrays, strings, numbers, null),
// enough for clq's --format json outputs. Doubles are written with 17
// significant digits so they round-trip. Infinities are written as SQLite's
// JSON functions write them, 9.0e+999 and -9.0e+999: numbers too large for a
// double, which JSON parsers read as infinities, so they stay apart from
// null. NaN, which JSON cannot hold, is null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clq {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& UInt(std::uint64_t value);
  JsonWriter& Double(double value);
  // A number already in JSON's syntax (a DECIMAL's exact digits).
  JsonWriter& Number(std::string_view digits);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

  static std::string Escape(std::string_view text);

 private:
  void BeforeValue();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace clq
