#include "names.h"

#include "record_format.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static const char* const func_names[FUNC_COUNT] = {
    "Unknown", "AllReduce", "AllGather", "ReduceScatter", "Reduce", "Broadcast", "Send",
    "Recv", "AllGatherV", "AlltoAll", "SendRecv", "Gather", "Scatter", "Other"};

static const char* const datatype_names[DATATYPE_COUNT] = {
    "None", "ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64", "ncclUint64",
    "ncclFloat16", "ncclFloat32", "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2",
    "Unknown", "Other"};

static const uint32_t datatype_sizes[DATATYPE_COUNT] = {0, 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1, 1, 0};

static const char* const algo_names[ALGO_COUNT] = {
    "None", "CE", "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT", "Other"};

static const char* const proto_names[PROTO_COUNT] = {"None", "LL", "LL128", "SIMPLE", "Other"};

static const char* const timing_names[TIMING_COUNT] = {"none", "kernel_gpu", "kernel_cpu",
                                                       "collective_cpu", "ce_cpu"};

/* Must follow the RECORD_FLAG_* bits of record_format.h, bit 0 first. */
static const char* const flag_names[] = {"incomplete", "no_kernel_events", "expired", "evicted",
                                         "flushed", "self_p2p", "extra_channels",
                                         "uint8_named_unknown", "channels_truncated",
                                         "copy_engine", "quarantined", "graph_launched",
                                         "desync_channels_excluded", "send_side_stop",
                                         "not_profiled_by_nccl", "proxy_truncated",
                                         "proxy_incomplete"};
#define FLAG_NAME_COUNT ((int)(sizeof(flag_names) / sizeof(flag_names[0])))
_Static_assert(1u << (FLAG_NAME_COUNT - 1) == RECORD_FLAG_PROXY_INCOMPLETE, "a name for every flag bit");

/* A few spellings NCCL versions have used for the same operation. */
static uint8_t func_alias(const char* s) {
  if (strcmp(s, "AllToAll") == 0 || strcmp(s, "Alltoall") == 0) return FUNC_ALL_TO_ALL;
  return FUNC_OTHER;
}

static uint8_t search(const char* const* names, int count, const char* s, uint8_t other) {
  for (int i = 1; i < count - 1; i++) {
    if (strcmp(names[i], s) == 0) return (uint8_t)i;
  }
  return other;
}

#define CACHE_SLOTS 32

/* One cache per table. Each entry packs (pointer << 8) | (id + 1) into a single word, so a reader
 * can never see a pointer paired with another pointer's id; relaxed order suffices because the id
 * is a pure function of the immutable string behind the pointer. */
static _Atomic uint64_t caches[4][CACHE_SLOTS];

static inline uint8_t cached_id(int table, const char* s, const char* const* names, int count,
                                uint8_t other) {
  if (s == NULL) return 0;
  uintptr_t p = (uintptr_t)s;
  _Atomic uint64_t* slot = &caches[table][((p >> 3) ^ (p >> 11)) & (CACHE_SLOTS - 1)];
  uint64_t entry = atomic_load_explicit(slot, memory_order_relaxed);
  if ((entry >> 8) == (uint64_t)p && (entry & 0xff) != 0) return (uint8_t)((entry & 0xff) - 1);
  uint8_t id = search(names, count, s, other);
  if (table == NAME_TABLE_FUNC && id == FUNC_OTHER) id = func_alias(s);
  atomic_store_explicit(slot, ((uint64_t)p << 8) | (uint64_t)(id + 1), memory_order_relaxed);
  return id;
}

uint8_t names_func_id(const char* s) {
  return cached_id(NAME_TABLE_FUNC, s, func_names, FUNC_COUNT, FUNC_OTHER);
}

uint8_t names_datatype_id(const char* s) {
  return cached_id(NAME_TABLE_DATATYPE, s, datatype_names, DATATYPE_COUNT, DATATYPE_OTHER);
}

uint8_t names_algo_id(const char* s) {
  return cached_id(NAME_TABLE_ALGO, s, algo_names, ALGO_COUNT, ALGO_OTHER);
}

uint8_t names_proto_id(const char* s) {
  return cached_id(NAME_TABLE_PROTO, s, proto_names, PROTO_COUNT, PROTO_OTHER);
}

uint32_t names_datatype_size(uint8_t datatype_id) {
  return datatype_id < DATATYPE_COUNT ? datatype_sizes[datatype_id] : 0;
}

const char* names_lookup(int table, int id) {
  if (id < 0 || id >= names_count(table)) return NULL;
  switch (table) {
    case NAME_TABLE_FUNC: return func_names[id];
    case NAME_TABLE_DATATYPE: return datatype_names[id];
    case NAME_TABLE_ALGO: return algo_names[id];
    case NAME_TABLE_PROTO: return proto_names[id];
    case NAME_TABLE_TIMING_SOURCE: return timing_names[id];
    case NAME_TABLE_RECORD_FLAG: return flag_names[id];
    default: return NULL;
  }
}

int names_count(int table) {
  switch (table) {
    case NAME_TABLE_FUNC: return FUNC_COUNT;
    case NAME_TABLE_DATATYPE: return DATATYPE_COUNT;
    case NAME_TABLE_ALGO: return ALGO_COUNT;
    case NAME_TABLE_PROTO: return PROTO_COUNT;
    case NAME_TABLE_TIMING_SOURCE: return TIMING_COUNT;
    case NAME_TABLE_RECORD_FLAG: return FLAG_NAME_COUNT;
    default: return 0;
  }
}

void names_reset_cache(void) {
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < CACHE_SLOTS; i++) atomic_store_explicit(&caches[t][i], 0, memory_order_relaxed);
  }
}
