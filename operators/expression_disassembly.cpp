// ExpressionProgram::Disassemble: one line per instruction, for EXPLAIN and
// failing tests.
#include "operators/expression_program.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <string_view>

#include "kernels_cl/vm_shared.h"

namespace clq {
namespace {

const char* OpcodeName(std::uint32_t op) {
  static const char* const kNames[VM_OPCODE_COUNT] = {
      "LOAD",     "PUSH",     "ADD_I",      "SUB_I",     "MUL_I",     "DIV_I",       "MOD_I",
      "ADD_R",    "SUB_R",    "MUL_R",      "DIV_R",     "MOD_R",     "NEG_I",       "NEG_R",
      "I2R",      "R2I",      "EQ_I",       "NE_I",      "LT_I",      "LE_I",        "GT_I",
      "GE_I",     "EQ_R",     "NE_R",       "LT_R",      "LE_R",      "GT_R",        "GE_R",
      "TRUTH_I",  "TRUTH_R",  "NOT",        "AND",       "OR",        "IS_NULL",     "IS_NOT_NULL",
      "IN_I",     "IN_R",     "STR_CMP",    "KEEP",      "TAKE_PASS", "DIV_CONST_I", "MOD_CONST_I",
      "KEEP_CMP", "NAN_NULL", "CASE_BEGIN", "CASE_WHEN", "CASE_THEN", "CASE_END",    "STR_LIKE",
      "EXTRACT"};
  return op < VM_OPCODE_COUNT ? kNames[op] : "?";
}

// The shortest text that reads back as `bits` taken as a double, with a
// decimal point (3.0, not 3).
std::string RealText(std::int64_t bits) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::bit_cast<double>(bits));
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".ein") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string ExpressionProgram::Disassemble(
    const std::function<std::string(std::size_t column)>& column_name) const {
  std::string text;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    text += "entry " + std::to_string(e) + ": [" + std::to_string(entries_[e].begin) + ", " +
            std::to_string(entries_[e].end) + ")\n";
  }
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    const std::string column =
        column_name ? column_name(slots_[s].column) : "column " + std::to_string(slots_[s].column);
    text += "slot " + std::to_string(s) + ": " + column + " " + slots_[s].type.ToString() +
            (slots_[s].nullable ? " nullable" : "") + "\n";
  }
  for (std::size_t pc = 0; pc < code_.size(); ++pc) {
    const std::uint32_t word0 = code_[pc].s[0];
    const std::uint32_t op = word0 & 0xFF;
    const std::uint32_t kind = (word0 >> 8) & 0xFF;
    const std::uint32_t arg = word0 >> 16;
    text += std::to_string(pc) + ": " + OpcodeName(op);
    if (op == VM_STR_CMP) {
      text += " slot " + std::to_string(kind & ~std::uint32_t{VM_OPND_NULLABLE}) + " width " +
              std::to_string(arg) + ((kind & VM_OPND_NULLABLE) ? " nullable" : "");
    } else if (op == VM_STR_LIKE) {
      const std::int64_t descriptor = constants_[code_[pc].s[1]];
      std::string pattern(static_cast<std::size_t>(descriptor & 0xffffffff), '\0');
      for (std::size_t i = 0; i < pattern.size(); ++i)
        pattern[i] = static_cast<char>(
            (static_cast<std::uint64_t>(constants_[code_[pc].s[1] + 1 + i / 8]) >> (8 * (i % 8))) &
            0xFF);
      text += " slot " + std::to_string(kind & ~std::uint32_t{VM_OPND_NULLABLE}) + " width " +
              std::to_string(arg) + (((descriptor >> 32) & 1) != 0 ? " not" : "") + " like '" +
              pattern + "'" + ((kind & VM_OPND_NULLABLE) ? " nullable" : "");
    } else if (op == VM_KEEP_CMP) {
      static const char* const kCompare[] = {"=", "<>", "<", "<=", ">", ">="};
      const std::uint32_t cmp = (arg >> 3) & 7;
      text += " slot " + std::to_string(arg & 7) +
              (cmp == VM_KEEP_CMP_RANGE ? " in [" + std::to_string(constants_[arg >> 6]) + ", " +
                                              std::to_string(constants_[(arg >> 6) + 1]) + "]"
                                        : std::string(" ") + kCompare[cmp] + " const " +
                                              std::to_string(constants_[arg >> 6])) +
              " else to " + std::to_string(code_[pc].s[1]) +
              ((kind & VM_OPND_NULLABLE) ? " nullable" : "");
    } else if (op == VM_EXTRACT) {
      static const char* const kFields[] = {"YEAR", "MONTH", "DAY"};
      text += std::string(" ") + (arg <= VM_EXTRACT_DAY ? kFields[arg] : "?") +
              ((kind & VM_OPND_NARROW) ? " narrow" : "");
    } else if (op == VM_IN_I || op == VM_IN_R) {
      text += " " + std::to_string(arg) + " constants" + (kind ? " +NULL" : "");
    } else {
      switch (kind & VM_OPND_BASE_MASK) {
        case VM_OPND_CONST: {
          // REAL operations read the constant's bits as a double.
          const std::string_view name = OpcodeName(op);
          const std::int64_t bits = constants_[code_[pc].s[1]];
          text += " const " + (name.ends_with("_R") ? RealText(bits) : std::to_string(bits));
          // LOAD and PUSH do not say their domain. A REAL constant's bits
          // are an integer of at least 2^52 in magnitude, seldom written as
          // one: then the REAL reading is shown too.
          const double real = std::bit_cast<double>(bits);
          if ((op == VM_LOAD || op == VM_PUSH) &&
              (bits >= (std::int64_t{1} << 52) || bits <= -(std::int64_t{1} << 52)) &&
              std::isfinite(real))
            text += " (" + RealText(bits) + " as REAL)";
          break;
        }
        case VM_OPND_NULL:
          text += " NULL";
          break;
        case VM_OPND_POP:
          text += " pop";
          break;
        case VM_OPND_NONE:
          break;
        default:
          text += " slot " + std::to_string(arg);
          break;
      }
      if (kind & VM_OPND_REVERSED) text += " reversed";
      if (kind & VM_OPND_NOCHECK) text += " nocheck";
      if (kind & VM_OPND_NARROW) text += " narrow";
    }
    text += "\n";
  }
  return text;
}

}  // namespace clq
