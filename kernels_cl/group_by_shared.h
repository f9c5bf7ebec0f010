/* Definitions shared by the hash GROUP BY (operators/hash_group_by.cpp) and
 * its kernels (kernels_cl/hash_group_by.cl). Compiled as C++ on the host and
 * as OpenCL C on devices: macros only. */
#ifndef CLQ_GROUP_BY_SHARED_H
#define CLQ_GROUP_BY_SHARED_H

/* How a row finds its group's slot: the mixed-radix image of integer keys
 * with known ranges (DIRECT), a probe of a hash table whose slot headers
 * hold that image when it fits 63 bits (PACKED) or a hash tag and a
 * representative row (HASH), or a group id per row from the sort (IDS). */
#define HGB_MODE_DIRECT 0
#define HGB_MODE_HASH 1
#define HGB_MODE_IDS 2
#define HGB_MODE_PACKED 3

/* A slot's first words: the header (PACKED: image + 1; HASH: the hash's
 * high 32 bits and row + 1; 0 when free), the first position as ~row
 * (merged by maximum; 0 when the slot is free), and, with aggregates, the
 * group's rows. */
#define HGB_WORD_HEADER 0
#define HGB_WORD_FIRST 1
#define HGB_WORD_ROWS 2

/* Keys and aggregate arguments one launch binds. */
#define HGB_MAX_KEYS 4
#define HGB_MAX_ARGS 8

/* Per key, longs of the key descriptor: type (SORT_TYPE_*), width, whether
 * it has a NULL map, and for DIRECT its smallest value, the number of its
 * non-NULL values and the stride of its digit in the image. */
#define HGB_KEY_LONGS 6
#define HGB_KEY_TYPE 0
#define HGB_KEY_WIDTH 1
#define HGB_KEY_NULLS 2
#define HGB_KEY_LO 3
#define HGB_KEY_CARD 4
#define HGB_KEY_STRIDE 5

/* Per aggregate, uints of the aggregate descriptor. */
#define HGB_AGG_UINTS 8
#define HGB_AGG_OP 0
#define HGB_AGG_TYPE 1  /* argument type, SORT_TYPE_* */
#define HGB_AGG_NULLS 2 /* the argument has a NULL map */
#define HGB_AGG_WORD 3  /* first state word of the operation */
#define HGB_AGG_COUNT 4 /* word counting non-NULL arguments, or HGB_NO_WORD */
#define HGB_AGG_BINS 5  /* SUM_REAL: bins */
#define HGB_AGG_BASE 6  /* SUM_REAL: bit position of bin 0's lowest bit (int) */
#define HGB_AGG_REAL 7  /* MIN/MAX: order the argument as a double */
#define HGB_NO_WORD 0xffffffffu

/* Per-row operations on a slot's 64-bit state words. Every one is
 * commutative and associative (integer sums, maxima, bitwise or), so the
 * state does not depend on the order rows arrive in. */
#define HGB_OP_COUNT 0     /* [count word only] */
#define HGB_OP_SUM 1       /* word += v (the total provably fits int64) */
#define HGB_OP_SUM_SPLIT 2 /* word += v & 0xffffffff, word + 1 += v >> 32 */
#define HGB_OP_MAX 3       /* word = max(word, ordered image of v) */
#define HGB_OP_MIN 4       /* word = max(word, ~ordered image of v) */
#define HGB_OP_SUM_REAL 5  /* exact: 30-bit pieces into bins, then a flags word */

/* How a word merges into another (flushes of work-group tables). */
#define HGB_MERGE_ADD 0
#define HGB_MERGE_MAX 1
#define HGB_MERGE_OR 2

/* SUM_REAL: each bin holds sums of 30-bit pieces, which cannot overflow
 * below 2^32 rows; the flags word records infinities and NaN. */
#define HGB_BIN_BITS 30
#define HGB_MAX_BINS 72
#define HGB_FLAG_POS_INF 1u
#define HGB_FLAG_NEG_INF 2u
#define HGB_FLAG_NAN 4u

/* A row's slot in the device-wide table rather than the work-group's. */
#define HGB_GLOBAL_SLOT 0x80000000u
#define HGB_NO_SLOT 0xffffffffu

/* Control words: [0] a table overflowed (HGB_OVERFLOW_*), [1] groups the
 * hash table holds, [2] rows of the first pass's work-groups that finished
 * with the table not full. */
#define HGB_CONTROL_WORDS 3
#define HGB_OVERFLOW_TABLE 1u /* the hash table filled up */
#define HGB_OVERFLOW_RANGE 2u /* a DIRECT key lay outside its range */

/* Rows a CPU work-group handles per block (its item arrays). */
#define HGB_CPU_BLOCK 256

#endif
