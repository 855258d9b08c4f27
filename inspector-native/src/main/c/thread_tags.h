/* Step and phase tags of the application thread that enqueues a collective.
 *
 * Java sets them on its own thread (NcclInspector.step / phase): the tag lives in a thread-local
 * of this library. NCCL calls the plugin for CollApi/P2pApi on the enqueuing thread; the core
 * answers with a handle that *is* the tag (no slot, nothing to free), and NCCL hands that handle
 * back as the parent of the Coll/P2p event, even when that event comes from another thread
 * (non-blocking communicators, CUDA-graph replays). Interface v4 has no API events: there the tag
 * is read at the Coll/P2p event itself, on the thread that makes it.
 *
 * The same handle says whether NCCL captured the call into a CUDA graph: the Coll/P2p events
 * of every replay of that graph name it as their parent, so their records are marked as
 * graph-launched.
 *
 *   tag handle: phase id (16) | graph captured (1) | step + 1 (45) | HANDLE_TAG_API (2)
 */
#ifndef NCCL_INSPECTOR_THREAD_TAGS_H
#define NCCL_INSPECTOR_THREAD_TAGS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "handles.h"
#include "inspector_limits.h"

#define TAG_STEP_BITS 45
#define TAG_GRAPH_BIT 47
#define TAG_STEP_MAX ((1ull << TAG_STEP_BITS) - 2) /* step + 1 must fit */

typedef struct thread_tag {
  int64_t step;   /* -1: none */
  uint16_t phase; /* 0: none */
} thread_tag;

extern _Thread_local thread_tag tls_tag;
/* Set once any thread has set a tag: until then API events cost nothing. */
extern _Atomic int g_tags_in_use;

void tags_set_current_thread(int64_t step, uint16_t phase);

static inline int tags_in_use(void) {
  /* Relaxed: an optimisation flag; a thread that tags itself sets it before its own events. */
  return atomic_load_explicit(&g_tags_in_use, memory_order_relaxed);
}

static inline thread_tag tags_of_current_thread(void) {
  if (!tags_in_use()) {
    thread_tag none = {-1, 0};
    return none;
  }
  return tls_tag;
}

static inline void* tags_encode(thread_tag t, int graph_captured) {
  if (t.step < 0 && t.phase == 0 && !graph_captured) return NULL;
  uint64_t step = t.step < 0 ? 0 : ((uint64_t)t.step > TAG_STEP_MAX ? TAG_STEP_MAX : (uint64_t)t.step) + 1;
  return (void*)(uintptr_t)(((uint64_t)t.phase << 48) | ((uint64_t)(graph_captured != 0) << TAG_GRAPH_BIT) |
                            (step << 2) | HANDLE_TAG_API);
}

/* Whether an API tag handle stands for a call captured into a CUDA graph. */
static inline int tags_graph_captured(const void* handle) {
  return (int)(((uint64_t)(uintptr_t)handle >> TAG_GRAPH_BIT) & 1u);
}

static inline thread_tag tags_decode(const void* handle) {
  uint64_t v = (uint64_t)(uintptr_t)handle;
  uint64_t step = (v >> 2) & ((1ull << TAG_STEP_BITS) - 1);
  thread_tag t = {step == 0 ? -1 : (int64_t)(step - 1), (uint16_t)(v >> 48)};
  return t;
}

#endif
