/* Fixed sizes of the native core. Everything the core allocates is sized from these and from the
 * configuration given at enable time; nothing grows while NCCL runs. */
#ifndef NCCL_INSPECTOR_LIMITS_H
#define NCCL_INSPECTOR_LIMITS_H

/* NCCL's MAXCHANNELS: the highest channel id a KernelCh event can carry is 63. */
#define INSPECTOR_MAX_CHANNELS 64

/* Bytes of a communicator name kept (including the terminating NUL); longer names are cut. */
#define INSPECTOR_COMM_NAME_MAX 128

/* Bytes of one ring cell; a record is a whole number of cells. */
#define INSPECTOR_CELL_BYTES 64

/* Upper bounds accepted for the configurable table sizes. Handles carry a 24-bit slot index. */
#define INSPECTOR_MAX_OP_SLOTS (1u << 21) /* proxy step handles use bit 21 (proxy_breakdown.h) */
#define INSPECTOR_MAX_COMM_SLOTS (1u << 16)
#define INSPECTOR_MAX_RING_CELLS (1u << 26)

/* Symbols hidden from the final shared object unless marked for export. */
#define INSPECTOR_EXPORT __attribute__((visibility("default")))
#define INSPECTOR_LIKELY(x) __builtin_expect(!!(x), 1)
#define INSPECTOR_UNLIKELY(x) __builtin_expect(!!(x), 0)

#endif
