/* Opaque handles given to NCCL.
 *
 * NCCL never dereferences a plugin's handles: it only passes them back. So a handle here is not a
 * pointer but a tagged integer: the slot index, the slot's generation when the handle was issued,
 * and for kernel channels the channel's index within its operation. An event for a recycled slot
 * carries an old generation and is recognised as stale without touching the slot's data; a value
 * the core never issued fails the tag or bounds check. The generation is never 0 and the tag is
 * never 0, so a handle is never NULL.
 *
 *   bits 63..32  generation
 *   bits 31..26  channel index (kernel-channel handles only)
 *   bits 25..2   slot index
 *   bits  1..0   tag
 */
#ifndef NCCL_INSPECTOR_HANDLES_H
#define NCCL_INSPECTOR_HANDLES_H

#include <stdint.h>

/* Contexts (given at init) and event handles are separate namespaces: tag 3 is a communicator
 * context in the first, a thread tag (thread_tags.h) in the second. Tag 0 is a collective call's
 * entry in the API ledger (api_ledger.h), whose index field is never 0, so it is never NULL. */
enum { HANDLE_TAG_LEDGER = 0, HANDLE_TAG_OP = 1, HANDLE_TAG_CHANNEL = 2, HANDLE_TAG_COMM = 3, HANDLE_TAG_API = 3 };

/* The handle of a KernelLaunch event named for CUPTI (kernel_records.h): the ledger's tag with
 * index 0, which no ledger entry has, and generation 1, so not NULL. */
#define KERNEL_LAUNCH_HANDLE ((void*)(uintptr_t)(1ull << 32))

#define HANDLE_INDEX_BITS 24
#define HANDLE_INDEX_MASK ((1u << HANDLE_INDEX_BITS) - 1)

static inline void* handle_make(uint32_t tag, uint32_t index, uint32_t channel, uint32_t gen) {
  uint64_t v = ((uint64_t)gen << 32) | ((uint64_t)(channel & 63) << 26) |
               ((uint64_t)(index & HANDLE_INDEX_MASK) << 2) | (tag & 3);
  return (void*)(uintptr_t)v;
}

static inline uint32_t handle_tag(const void* h) { return (uint32_t)((uintptr_t)h & 3); }
static inline uint32_t handle_index(const void* h) {
  return (uint32_t)(((uintptr_t)h >> 2) & HANDLE_INDEX_MASK);
}
static inline uint32_t handle_channel(const void* h) { return (uint32_t)(((uintptr_t)h >> 26) & 63); }
static inline uint32_t handle_gen(const void* h) { return (uint32_t)((uint64_t)(uintptr_t)h >> 32); }

#endif
