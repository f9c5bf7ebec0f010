/* Definitions shared by the sort and group-by operators (operators/sort.cpp,
 * operators/group_by.cpp) and their kernels (kernels_cl/sort.cl,
 * kernels_cl/group_by.cl). Compiled as C++ on the host and as OpenCL C on
 * devices: macros only. */
#ifndef CLQ_SORT_SHARED_H
#define CLQ_SORT_SHARED_H

/* Key types: the first four equal clq::DataType; UINT32 is internal (row
 * positions). */
#define SORT_TYPE_INT32 0
#define SORT_TYPE_INT64 1
#define SORT_TYPE_DOUBLE 2
#define SORT_TYPE_CHAR 3
#define SORT_TYPE_UINT32 4
/* Images already computed (64-bit), as radix select compacts them. */
#define SORT_TYPE_IMAGE 5

/* Radix digits of 4 bits: a work-item's 16 counters stay in registers and a
 * work-group's counters (16 x WG_SIZE) fit local memory on every device. */
#define SORT_RADIX_BITS 4
#define SORT_BUCKETS 16

/* Top-k (operators/top_k.cpp, kernels_cl/top_k.cl): a key's descriptor word.
 * Bits 0-2 SORT_TYPE_*; TOP_K_NULLS: the key has a NULL map to read;
 * TOP_K_FLAG: its segment starts with a not-NULL bit; TOP_K_DESC: the segment
 * is complemented; bits 8-14: the segment's length in bits (0: no key). */
#define TOP_K_NULLS 8u
#define TOP_K_FLAG 16u
#define TOP_K_DESC 32u
#define TOP_K_LEN_SHIFT 8
#define TOP_K_TYPE(key) ((key) & 7u)
#define TOP_K_LEN(key) (((key) >> TOP_K_LEN_SHIFT) & 127u)

/* Entries a GPU work-group holds in local memory while it selects (a power
 * of two), and the most rows it tests between two reductions. */
#define TOP_K_CAPACITY 2048
#define TOP_K_MAX_CHUNK 1024
/* Rows a CPU work-group tests in one vectorised pass before it looks at any
 * row alone (a multiple of 32). */
#define TOP_K_BLOCK 256

/* Group-by aggregate beyond VM_AGG_*: QUANTILE(argument, q), MEDIAN for
 * q = 0.5 (rank floor(q * (n - 1)) of the group's sorted non-NULL values). */
#define GROUP_AGG_QUANTILE 16

#endif
