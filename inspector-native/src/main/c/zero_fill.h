/* Zeroing of the small fixed-size structures the hot path fills before it writes their fields
 * (records, timing results, proxy cells).
 *
 * GCC compiles a memset of a few hundred bytes into `rep stosq`, whose start-up cost on the AMD
 * EPYC hosts measured made up a third to almost half of the samples of emit_op_record and
 * op_timing_compute. A copy from a zeroed constant of the same type compiles into vector moves
 * instead (or, for a larger type, a call to the C library's memcpy, which picks its own way). */
#ifndef NCCL_INSPECTOR_ZERO_FILL_H
#define NCCL_INSPECTOR_ZERO_FILL_H

#include <string.h>

#define ZERO_FILL(p)                                            \
  do {                                                          \
    static const __typeof__(*(p)) zero_fill_source_;            \
    memcpy((p), &zero_fill_source_, sizeof(zero_fill_source_)); \
  } while (0)

#endif
