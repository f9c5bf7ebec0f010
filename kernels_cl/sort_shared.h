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

/* Group-by aggregate beyond VM_AGG_*: QUANTILE(argument, q), MEDIAN for
 * q = 0.5 (rank floor(q * (n - 1)) of the group's sorted non-NULL values). */
#define GROUP_AGG_QUANTILE 16

#endif
