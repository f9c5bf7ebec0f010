/* Definitions shared by the expression virtual machine's host compiler
 * (operators/expression_program.cpp) and its kernels (kernels_cl/vm.cl).
 * Compiled as C++ on the host and as OpenCL C on devices: macros only.
 *
 * A program is an array of instructions (two 32-bit words each) and an array
 * of 64-bit constants. The machine is accumulator based: each instruction
 * fetches one operand (a constant, a column slot, or the top of a small stack)
 * and combines it with the accumulator, so the common shapes (column op
 * constant, column op column) never touch the stack. Every work-item runs the
 * program over its IPT items at once; the accumulator is IPT values plus IPT
 * NULL flags.
 *
 * word0 = opcode | operand kind << 8 | argument << 16; word1 = constant index.
 */
#ifndef CLQ_VM_SHARED_H
#define CLQ_VM_SHARED_H

#define VM_MAX_SLOTS 8
#define VM_MAX_STACK 8
#define VM_MAX_AGGREGATES 16
/* Most tiles one work-group of vm_aggregate covers. */
#define VM_MAX_TILES_PER_GROUP 64

/* Operand kinds. Column kinds read slot `argument` at the item's row; the
 * _R variants convert an integer column to double on load. Adding
 * VM_OPND_NULLABLE to a column kind also reads the slot's NULL map. */
#define VM_OPND_NONE 0
#define VM_OPND_CONST 1
#define VM_OPND_NULL 2
#define VM_OPND_POP 3
#define VM_OPND_COL_I32 4
#define VM_OPND_COL_I64 5
#define VM_OPND_COL_F64 6
#define VM_OPND_COL_I32_R 7
#define VM_OPND_COL_I64_R 8
#define VM_OPND_NULLABLE 0x80
/* Operand flag: the operand is the LEFT side of the operation and the
 * accumulator the right (acc = operand OP acc), so `leaf OP expression` needs
 * no stack. Used by non-commutative arithmetic. */
#define VM_OPND_REVERSED 0x40
/* Arithmetic flags the compiler sets from value ranges (column statistics,
 * constants): NOCHECK, the result provably fits int64, so the overflow test
 * is skipped; NARROW, operands and result provably fit int32 (for
 * DIV/MOD_CONST: |dividend| < 2^31 and the constants hold the 32-bit magic),
 * so the operation runs in 32-bit arithmetic, several times cheaper on GPUs. */
#define VM_OPND_NOCHECK 0x20
#define VM_OPND_NARROW 0x10
#define VM_OPND_BASE_MASK 0x0f

/* Opcodes. _I work on int64, _R on double (bits kept in a long). Comparisons
 * and logic leave 0/1 in the accumulator; NULL propagates per SQL. */
#define VM_LOAD 0
#define VM_PUSH 1
#define VM_ADD_I 2
#define VM_SUB_I 3
#define VM_MUL_I 4
#define VM_DIV_I 5
#define VM_MOD_I 6
#define VM_ADD_R 7
#define VM_SUB_R 8
#define VM_MUL_R 9
#define VM_DIV_R 10
#define VM_MOD_R 11
#define VM_NEG_I 12
#define VM_NEG_R 13
#define VM_I2R 14
#define VM_R2I 15
#define VM_EQ_I 16
#define VM_NE_I 17
#define VM_LT_I 18
#define VM_LE_I 19
#define VM_GT_I 20
#define VM_GE_I 21
#define VM_EQ_R 22
#define VM_NE_R 23
#define VM_LT_R 24
#define VM_LE_R 25
#define VM_GT_R 26
#define VM_GE_R 27
#define VM_TRUTH_I 28
#define VM_TRUTH_R 29
#define VM_NOT 30
#define VM_AND 31
#define VM_OR 32
#define VM_IS_NULL 33
#define VM_IS_NOT_NULL 34
/* acc IN constants[word1 .. word1 + argument); operand kind 1 when the list
 * held a NULL (a miss is then NULL, not false). */
#define VM_IN_I 35
#define VM_IN_R 36
/* Compares the CHAR column in slot (operand kind field) with a literal:
 * argument = the column width; constants[word1] = literal length | cmp << 32,
 * the literal's bytes packed little-endian from constants[word1 + 1].
 * cmp: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >=. */
#define VM_STR_CMP 37
/* Predicate conjunctions without the stack: KEEP ands the accumulator's truth
 * (NULL counts as false, as in WHERE) into a pass flag that starts true;
 * TAKE_PASS loads the flag into the accumulator. A KEEP's word1 is the
 * position of the predicate's TAKE_PASS: when no item passes any more, the
 * machine loads the (all-false) result and continues after it. */
#define VM_KEEP 38
#define VM_TAKE_PASS 39
/* Integer division and remainder by a constant d (not 0, 1 or -1), by
 * multiplication with a precomputed magic number (Granlund & Montgomery;
 * Hacker's Delight 10-4): constants[word1] = magic, constants[word1 + 1] =
 * shift, constants[word1 + 2] = d. */
#define VM_DIV_CONST_I 40
#define VM_MOD_CONST_I 41
/* LOAD of an integer column, comparison with a constant, KEEP: the commonest
 * conjunct of a WHERE in one decode instead of three. Operand kind = the
 * column's (VM_OPND_COL_I32 or _I64, with VM_OPND_NULLABLE); argument =
 * slot | cmp << 3 | constant index << 6 (cmp as for VM_STR_CMP; the index
 * below 1024); word1 = the KEEP target. */
#define VM_KEEP_CMP 42
/* The cmp field of VM_KEEP_CMP. RANGE keeps lo <= value <= hi, lo and hi
 * being constants[index] and constants[index + 1]. */
#define VM_KEEP_CMP_EQ 0
#define VM_KEEP_CMP_NE 1
#define VM_KEEP_CMP_LT 2
#define VM_KEEP_CMP_LE 3
#define VM_KEEP_CMP_GT 4
#define VM_KEEP_CMP_GE 5
#define VM_KEEP_CMP_RANGE 6
/* The accumulator's REAL values that are NaN become NULL, as in SQLite
 * (Inf - Inf, 0 * Inf, Inf / Inf). Emitted after a REAL operation only where
 * the host's range analysis cannot rule NaN out (MayBeNaN), so the entry
 * then tracks NULLs. */
#define VM_NAN_NULL 43
/* CASE WHEN c1 THEN v1 ... ELSE e END, lazily: an item evaluates a branch
 * only where it chose it, so a branch it did not choose raises nothing for
 * it (the machine raises only for items in `pass`). The code is
 *   CASE_BEGIN  c1 CASE_WHEN v1 CASE_THEN  ...  e CASE_END
 * CASE_BEGIN pushes the items in `pass` (restored by CASE_END) and the
 * result so far (all NULL); `pass` holds the undecided items from then on.
 * CASE_WHEN pushes them and keeps in `pass` those whose condition (the
 * accumulator) is true; CASE_THEN pops them, stores the accumulator into the
 * result where `pass`, and leaves in `pass` the undecided items the condition
 * did not take. CASE_END takes the accumulator (the ELSE) where `pass`,
 * the result elsewhere, and restores `pass`. No operand. */
#define VM_CASE_BEGIN 44
#define VM_CASE_WHEN 45
#define VM_CASE_THEN 46
#define VM_CASE_END 47
/* The CHAR column in slot (operand kind field, with VM_OPND_NULLABLE) LIKE a
 * pattern: argument = the column width; constants[word1] = pattern length |
 * negated << 32 | (the position after its last '%', 0 if none) << 40, the
 * pattern's bytes packed little-endian from
 * constants[word1 + 1] ('%' any run of bytes, '_' one byte). */
#define VM_STR_LIKE 48
/* EXTRACT(field FROM acc): the year, month (1..12) or day (1..31) of the
 * accumulator read as days since 1970-01-01 in the proleptic Gregorian
 * calendar; argument = the field (VM_EXTRACT_YEAR..DAY); NULL stays NULL.
 * With VM_OPND_NARROW the host proved every day fits int32 and the 32-bit
 * arithmetic runs; without it (64-bit machine only, a rare operation) any
 * int64 day. */
#define VM_EXTRACT 49
#define VM_OPCODE_COUNT 50

#define VM_EXTRACT_YEAR 0
#define VM_EXTRACT_MONTH 1
#define VM_EXTRACT_DAY 2

/* A predicate made only of conjuncts that test an INT32 column without
 * NULLs, or its remainder by a constant, against constants also runs without
 * the interpreter, in vm_filter_conjuncts (vm_filter_conjuncts.cl). Each
 * conjunct is VM_CONJUNCT_LONGS program constants:
 * [0] slot | flags << 8 | shift << 16 | mode << 24, [1] lo, [2] hi,
 * [3] magic, [4] divisor. It keeps a row when lo <= v <= hi (the opposite
 * with VM_CONJUNCT_NEGATE), v being the column's value or, with
 * VM_CONJUNCT_MOD, its remainder by the divisor through the 32-bit magic and
 * shift of VM_MOD_CONST_I. */
#define VM_CONJUNCT_LONGS 5
#define VM_CONJUNCT_NEGATE 1
#define VM_CONJUNCT_MOD 2

/* Aggregate operations of vm_aggregate. */
#define VM_AGG_COUNT 0
#define VM_AGG_SUM_I 1
#define VM_AGG_SUM_R 2
#define VM_AGG_MIN_I 3
#define VM_AGG_MAX_I 4
#define VM_AGG_MIN_R 5
#define VM_AGG_MAX_R 6
/* The halves of an exact integer SUM, for arguments whose total the range
 * analysis cannot bound: the sum of each value's low 32 bits as unsigned and
 * of its high 32 bits (x >> 32). Neither overflows for fewer than 2^32 rows,
 * in any order; the host joins them and decides overflow once, on the total
 * (operators/aggregation.cpp), so the answer does not depend on the order
 * in which a device adds. */
#define VM_AGG_SUM_LO32 7
#define VM_AGG_SUM_HI32 8

/* Bits of the status word kernels raise. */
#define VM_STATUS_OVERFLOW 1u
/* A rare operation reached the lean machine (a host bug, never data). */
#define VM_STATUS_UNSUPPORTED 2u

#endif
