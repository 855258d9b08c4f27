/* Translation of NCCL's operation, datatype, algorithm and protocol strings into small ids.
 *
 * NCCL passes pointers to static string literals; a small per-table cache keyed by the pointer
 * makes the common case one relaxed load and a compare instead of a series of strcmp calls.
 * The tables are exported to Java by id so that both sides name things identically. */
#ifndef NCCL_INSPECTOR_NAMES_H
#define NCCL_INSPECTOR_NAMES_H

#include <stdint.h>

typedef enum {
  NAME_TABLE_FUNC = 0,
  NAME_TABLE_DATATYPE = 1,
  NAME_TABLE_ALGO = 2,
  NAME_TABLE_PROTO = 3,
  NAME_TABLE_TIMING_SOURCE = 4,
  NAME_TABLE_RECORD_FLAG = 5, /* name of bit i of a record's flags (record_format.h) */
  NAME_TABLE_COUNT = 6
} name_table;

/* Id 0 of every table means "absent" (NULL string); the last id means "not recognised". */
enum {
  FUNC_NONE = 0,
  FUNC_ALL_REDUCE,
  FUNC_ALL_GATHER,
  FUNC_REDUCE_SCATTER,
  FUNC_REDUCE,
  FUNC_BROADCAST,
  FUNC_SEND,
  FUNC_RECV,
  FUNC_ALL_GATHER_V,
  FUNC_ALL_TO_ALL,
  FUNC_SEND_RECV,
  FUNC_GATHER,
  FUNC_SCATTER,
  FUNC_OTHER,
  FUNC_COUNT
};

enum {
  DATATYPE_NONE = 0,
  DATATYPE_INT8,
  DATATYPE_UINT8,
  DATATYPE_INT32,
  DATATYPE_UINT32,
  DATATYPE_INT64,
  DATATYPE_UINT64,
  DATATYPE_FLOAT16,
  DATATYPE_FLOAT32,
  DATATYPE_FLOAT64,
  DATATYPE_BFLOAT16,
  DATATYPE_FLOAT8E4M3,
  DATATYPE_FLOAT8E5M2,
  /* NCCL 2.28's ncclDatatypeToString has no case for ncclUint8 and returns "Unknown":
   * counted as one byte per element (see docs/output.md, "Message size"). */
  DATATYPE_UNKNOWN_AS_UINT8,
  DATATYPE_OTHER,
  DATATYPE_COUNT
};

enum { ALGO_NONE = 0, ALGO_CE, ALGO_TREE, ALGO_RING, ALGO_COLLNET_DIRECT, ALGO_COLLNET_CHAIN, ALGO_NVLS, ALGO_NVLS_TREE, ALGO_PAT, ALGO_OTHER, ALGO_COUNT };

enum { PROTO_NONE = 0, PROTO_LL, PROTO_LL128, PROTO_SIMPLE, PROTO_OTHER, PROTO_COUNT };

enum {
  TIMING_NONE = 0,
  TIMING_KERNEL_GPU,
  TIMING_KERNEL_CPU,
  TIMING_COLLECTIVE_CPU,
  TIMING_CE_CPU, /* copy-engine collective: CPU span of its start and stop events */
  TIMING_COUNT
};

uint8_t names_func_id(const char* s);
uint8_t names_datatype_id(const char* s);
uint8_t names_algo_id(const char* s);
uint8_t names_proto_id(const char* s);

/* Bytes per element of a datatype id, or 0 when the size is not known. */
uint32_t names_datatype_size(uint8_t datatype_id);

/* Name of an id in a table (NULL when out of range) and the number of ids in a table. */
const char* names_lookup(int table, int id);
int names_count(int table);

/* Forgets cached string pointers (called at enable, in case libraries were reloaded). */
void names_reset_cache(void);

#endif
