#include "operators/cpu_reference/value_vector.hpp"

#include "common/errors.hpp"

namespace clq::cpu_reference {

ValueVector ValueVector::Make(sql::ValueType type, std::size_t rows) {
  ValueVector v;
  v.type = type;
  switch (type) {
    case sql::ValueType::kInteger:
      v.integers.assign(rows, 0);
      break;
    case sql::ValueType::kReal:
      v.reals.assign(rows, 0.0);
      break;
    case sql::ValueType::kText:
      v.texts.assign(rows, std::string_view());
      break;
    case sql::ValueType::kNull:
      break;
  }
  v.nulls.assign(rows, type == sql::ValueType::kNull ? 1 : 0);
  return v;
}

ValueVector ValueVector::AllNull(sql::ValueType type, std::size_t rows) {
  ValueVector v = Make(type, rows);
  v.nulls.assign(rows, 1);
  return v;
}

ValueVector Gather(const ValueVector& values, std::span<const Position> positions) {
  ValueVector r;
  r.type = values.type;
  const std::size_t n = positions.size();
  r.nulls.resize(n);
  // Local pointers: a uint8_t store may alias the vectors' data pointers.
  const std::uint8_t* from_null = values.nulls.data();
  std::uint8_t* to_null = r.nulls.data();
  for (std::size_t i = 0; i < n; ++i)
    to_null[i] = from_null[positions[i]];
  switch (values.type) {
    case sql::ValueType::kInteger:
      r.integers.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        r.integers[i] = values.integers[positions[i]];
      break;
    case sql::ValueType::kReal:
      r.reals.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        r.reals[i] = values.reals[positions[i]];
      break;
    case sql::ValueType::kText:
      r.texts.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        r.texts[i] = values.texts[positions[i]];
      break;
    case sql::ValueType::kNull:
      break;
  }
  return r;
}

void AppendRow(ValueVector& to, const ValueVector& from, std::size_t row) {
  CLQ_CHECK(to.type == from.type, "appending a value of another type");
  to.nulls.push_back(from.nulls[row]);
  switch (from.type) {
    case sql::ValueType::kInteger:
      to.integers.push_back(from.integers[row]);
      break;
    case sql::ValueType::kReal:
      to.reals.push_back(from.reals[row]);
      break;
    case sql::ValueType::kText:
      to.texts.push_back(from.texts[row]);
      break;
    case sql::ValueType::kNull:
      break;
  }
}

ValueVector ToReal(const ValueVector& values) {
  if (values.type != sql::ValueType::kInteger) return values;
  ValueVector r;
  r.type = sql::ValueType::kReal;
  r.nulls = values.nulls;
  r.reals.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    r.reals[i] = static_cast<double>(values.integers[i]);
  return r;
}

const char* TypeName(sql::ValueType type) {
  switch (type) {
    case sql::ValueType::kNull:
      return "NULL";
    case sql::ValueType::kInteger:
      return "INTEGER";
    case sql::ValueType::kReal:
      return "REAL";
    case sql::ValueType::kText:
      return "TEXT";
  }
  return "?";
}

bool IsNumeric(sql::ValueType type) {
  return type == sql::ValueType::kInteger || type == sql::ValueType::kReal;
}

}  // namespace clq::cpu_reference
