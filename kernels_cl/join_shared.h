/* Definitions shared by the join's host code (operators/join_dense.cpp) and
 * its kernels (kernels_cl/join_dense.cl). Compiled as C++ on the host and as
 * OpenCL C on devices: macros only. */
#ifndef CLQ_JOIN_SHARED_H
#define CLQ_JOIN_SHARED_H

/* Most buckets (key values, max - min + 1) of the dense multimap: each
 * chunk's histogram is counted in local memory (16 KiB, within every
 * device's local memory next to the kernels' other local arrays). */
#define JOIN_DENSE_MAX_BUCKETS 4096

/* Pairs the dense pair writer copies for a probe row before it looks at the
 * row's count, as one 4-vector (its bucket's rows are padded by
 * JOIN_DENSE_BLOCK - 1). */
#define JOIN_DENSE_BLOCK 4

#endif
