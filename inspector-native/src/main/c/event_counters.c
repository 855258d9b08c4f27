#include "event_counters.h"

#include <stddef.h>

#include "record_format.h"

counter_stripe g_counter_stripes[COUNTER_STRIPES];
_Thread_local unsigned tls_counter_stripe;

/* Relaxed: hands out stripe numbers; nothing else is published through it. */
static _Atomic unsigned next_stripe;

unsigned counter_take_stripe(void) {
  unsigned s = atomic_fetch_add_explicit(&next_stripe, 1, memory_order_relaxed) % COUNTER_STRIPES + 1;
  tls_counter_stripe = s;
  return s;
}

static const char* const names[CTR_COUNT] = {
#define INSPECTOR_COUNTER_NAME(id, name, kind) name,
    INSPECTOR_COUNTERS(INSPECTOR_COUNTER_NAME)
#undef INSPECTOR_COUNTER_NAME
};

static const unsigned char kinds[CTR_COUNT] = {
#define INSPECTOR_COUNTER_KIND(id, name, kind) COUNTER_KIND_##kind,
    INSPECTOR_COUNTERS(INSPECTOR_COUNTER_KIND)
#undef INSPECTOR_COUNTER_KIND
};

/* Quarantine counters are indexed by reason (record_emit.c). */
_Static_assert(CTR_GPU_TIMESTAMP_REVERSED - CTR_GPU_TIMESTAMP_ZERO ==
                   QUARANTINE_GPU_TIMESTAMP_REVERSED - QUARANTINE_GPU_TIMESTAMP_ZERO &&
               CTR_GPU_TIMESTAMP_ABSURD - CTR_GPU_TIMESTAMP_ZERO ==
                   QUARANTINE_GPU_TIMESTAMP_ABSURD - QUARANTINE_GPU_TIMESTAMP_ZERO &&
               CTR_KERNEL_CHANNEL_DESYNC - CTR_GPU_TIMESTAMP_ZERO ==
                   QUARANTINE_KERNEL_CHANNEL_DESYNC - QUARANTINE_GPU_TIMESTAMP_ZERO &&
               CTR_KERNEL_EVENTS_MISSING - CTR_GPU_TIMESTAMP_ZERO ==
                   QUARANTINE_KERNEL_EVENTS_MISSING - QUARANTINE_GPU_TIMESTAMP_ZERO &&
               CTR_KERNEL_EVENTS_MISSING == CTR_COUNT - 1,
               "quarantine counters follow the quarantine reasons");

uint64_t counter_read(int id) {
  if (id < 0 || id >= CTR_COUNT) return 0;
  uint64_t sum = 0;
  /* Relaxed: a statistic; a count racing with the read lands in this read or the next. */
  for (int s = 0; s < COUNTER_STRIPES; s++) {
    sum += atomic_load_explicit(&g_counter_stripes[s].v[id], memory_order_relaxed);
  }
  return sum;
}

const char* counter_name(int id) { return (id < 0 || id >= CTR_COUNT) ? NULL : names[id]; }

int counter_kind(int id) { return (id < 0 || id >= CTR_COUNT) ? -1 : kinds[id]; }

void counters_reset(void) {
  for (int s = 0; s < COUNTER_STRIPES; s++) {
    for (int i = 0; i < CTR_COUNT; i++) {
      atomic_store_explicit(&g_counter_stripes[s].v[i], 0, memory_order_relaxed);
    }
  }
}
