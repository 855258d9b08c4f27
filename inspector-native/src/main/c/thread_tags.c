#include "thread_tags.h"

_Thread_local thread_tag tls_tag = {-1, 0};
_Atomic int g_tags_in_use;

void tags_set_current_thread(int64_t step, uint16_t phase) {
  tls_tag.step = step < 0 ? -1 : step;
  tls_tag.phase = phase;
  atomic_store_explicit(&g_tags_in_use, 1, memory_order_relaxed);
}
