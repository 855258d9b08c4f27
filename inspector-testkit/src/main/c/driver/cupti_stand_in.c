#include "cupti_stand_in.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"

#define STAND_IN_EXPORT __attribute__((visibility("default")))

enum { KERNEL_BYTES = 216, EXTERNAL_BYTES = 24, API_BYTES = 40, MAX_KERNELS = 1 << 20 };

/* One lock for everything: launches come from NCCL's (the driver's) thread, flushes from the
 * dump thread; a stand-in has no hot path to spare. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cupti_buffer_requested_fn requested;
static cupti_buffer_completed_fn completed;
static long long* kernel_start;
static long long* kernel_end;
static int kernels;
static int enable_error;
/* API records of the launch function (cuLaunchKernelEx, callback id 652), turned on by itself or
 * with every driver function (kind DRIVER): CUPTI writes an external correlation record only with
 * an API record, so without them no kernel is named by its launch. */
static int launch_api_records, driver_api_records;
static long long pushes, pops, unbalanced;
/* CUPTI's one subscriber slot: held by another tool, or by a subscriber of the stand-in's own. */
static int other_tool, subscribers;
static _Thread_local int depth;
static uint32_t next_correlation = 1;
static uint8_t* buffer;
static size_t buffer_size, buffer_used;

void cupti_stand_in_reset(const long long* starts, const long long* ends, int n, int error) {
  pthread_mutex_lock(&lock);
  free(kernel_start);
  free(kernel_end);
  kernel_start = kernel_end = NULL;
  kernels = 0;
  if (n > 0 && n <= MAX_KERNELS && starts != NULL && ends != NULL) {
    kernel_start = malloc(sizeof(long long) * (size_t)n);
    kernel_end = malloc(sizeof(long long) * (size_t)n);
    if (kernel_start != NULL && kernel_end != NULL) {
      memcpy(kernel_start, starts, sizeof(long long) * (size_t)n);
      memcpy(kernel_end, ends, sizeof(long long) * (size_t)n);
      kernels = n;
    }
  }
  enable_error = error;
  pushes = pops = unbalanced = 0;
  other_tool = subscribers = 0;
  launch_api_records = driver_api_records = 0;
  pthread_mutex_unlock(&lock);
}

void cupti_stand_in_other_tool(int subscribed) {
  pthread_mutex_lock(&lock);
  other_tool = subscribed != 0;
  pthread_mutex_unlock(&lock);
}

int cupti_stand_in_subscribers(void) {
  pthread_mutex_lock(&lock);
  int n = subscribers;
  pthread_mutex_unlock(&lock);
  return n;
}

long long cupti_stand_in_pushes(void) { return __atomic_load_n(&pushes, __ATOMIC_RELAXED); }
long long cupti_stand_in_pops(void) { return __atomic_load_n(&pops, __ATOMIC_RELAXED); }
long long cupti_stand_in_unbalanced_pops(void) { return __atomic_load_n(&unbalanced, __ATOMIC_RELAXED); }

/* Under lock: room for n bytes in the buffer being filled (a full one was handed back before), or
 * NULL when no buffer was given (CUPTI drops the record). */
static uint8_t* room(size_t n) {
  if (buffer != NULL && buffer_used + n > buffer_size) return NULL; /* a flush comes first */
  if (buffer == NULL) {
    size_t max = 0;
    if (requested == NULL) return NULL;
    requested(&buffer, &buffer_size, &max);
    buffer_used = 0;
    if (buffer == NULL || buffer_size < n) {
      buffer = NULL;
      return NULL;
    }
  }
  uint8_t* at = buffer + buffer_used;
  memset(at, 0, n);
  buffer_used += n;
  return at;
}

/* Under lock: hands the buffer being filled back, if any, outside the lock. */
static void hand_back_locked_then_unlock(void) {
  uint8_t* b = buffer;
  size_t size = buffer_size, used = buffer_used;
  buffer = NULL;
  buffer_used = 0;
  cupti_buffer_completed_fn done = completed;
  pthread_mutex_unlock(&lock);
  if (b != NULL && done != NULL) done(NULL, 0, b, size, used);
}

STAND_IN_EXPORT cupti_result cuptiActivityRegisterCallbacks(cupti_buffer_requested_fn r, cupti_buffer_completed_fn c) {
  pthread_mutex_lock(&lock);
  requested = r;
  completed = c;
  pthread_mutex_unlock(&lock);
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiActivityEnable(uint32_t kind) {
  pthread_mutex_lock(&lock);
  if (enable_error == 0 && kind == CUPTI_KIND_DRIVER) driver_api_records = 1;
  cupti_result r = enable_error;
  pthread_mutex_unlock(&lock);
  return r;
}

STAND_IN_EXPORT cupti_result cuptiActivityDisable(uint32_t kind) {
  pthread_mutex_lock(&lock);
  if (kind == CUPTI_KIND_DRIVER) driver_api_records = 0;
  pthread_mutex_unlock(&lock);
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable) {
  pthread_mutex_lock(&lock);
  cupti_result r = enable_error;
  if (r == 0 && cbid == 652) launch_api_records = enable != 0;
  pthread_mutex_unlock(&lock);
  return r;
}

STAND_IN_EXPORT cupti_result cuptiActivityFlushAll(uint32_t flag) {
  (void)flag;
  pthread_mutex_lock(&lock);
  hand_back_locked_then_unlock();
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiActivityGetNextRecord(uint8_t* b, size_t valid, void** record) {
  uint8_t* at = b;
  if (*record != NULL) {
    uint32_t kind;
    at = *record;
    memcpy(&kind, at, sizeof(kind));
    at += kind == CUPTI_KIND_EXTERNAL_CORRELATION ? EXTERNAL_BYTES : kind == CUPTI_KIND_DRIVER ? API_BYTES : KERNEL_BYTES;
  }
  if (at >= b + valid) return CUPTI_MAX_LIMIT_REACHED;
  *record = at;
  return CUPTI_OK;
}

/* A push is the launch of the next kernel: where API records of the launch are on, its external
 * correlation record and its API record; its kernel's record if the list says it ran. */
STAND_IN_EXPORT cupti_result cuptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id) {
  pthread_mutex_lock(&lock);
  if (buffer != NULL && buffer_used + EXTERNAL_BYTES + API_BYTES + KERNEL_BYTES > buffer_size) {
    hand_back_locked_then_unlock(); /* a full buffer goes back, as CUPTI hands it to its thread */
    pthread_mutex_lock(&lock);
  }
  long long launch = pushes++;
  depth++;
  uint32_t correlation = next_correlation++;
  if (launch_api_records || driver_api_records) {
    uint8_t* x = room(EXTERNAL_BYTES);
    if (x != NULL) {
      cupti_external_correlation r = {CUPTI_KIND_EXTERNAL_CORRELATION, kind, id, correlation, 0};
      memcpy(x, &r, sizeof(r));
    }
    uint8_t* a = room(API_BYTES);
    if (a != NULL) {
      uint32_t a_kind = CUPTI_KIND_DRIVER, cbid = 652;
      memcpy(a, &a_kind, 4);
      memcpy(a + 4, &cbid, 4);
      memcpy(a + 36, &correlation, 4);
    }
  }
  if (launch < kernels && kernel_start[launch] >= 0) {
    uint8_t* k = room(KERNEL_BYTES);
    if (k != NULL) {
      uint32_t k_kind = CUPTI_KIND_CONCURRENT_KERNEL, device = 0, stream = 13;
      uint64_t start = (uint64_t)kernel_start[launch], end = (uint64_t)kernel_end[launch];
      memcpy(k, &k_kind, 4);
      memcpy(k + CUPTI_KERNEL_START, &start, 8);
      memcpy(k + CUPTI_KERNEL_END, &end, 8);
      memcpy(k + CUPTI_KERNEL_DEVICE, &device, 4);
      memcpy(k + CUPTI_KERNEL_STREAM, &stream, 4);
      memcpy(k + CUPTI_KERNEL_CORRELATION, &correlation, 4);
    }
  }
  pthread_mutex_unlock(&lock);
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t* last) {
  (void)kind;
  pthread_mutex_lock(&lock);
  if (depth == 0) {
    unbalanced++;
  } else {
    depth--;
  }
  pops++;
  pthread_mutex_unlock(&lock);
  if (last != NULL) *last = 0;
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiGetResultString(cupti_result r, const char** text) {
  *text = r == 999 ? "CUPTI_ERROR_UNKNOWN (stand-in)" : "stand-in error";
  return CUPTI_OK;
}

STAND_IN_EXPORT cupti_result cuptiSubscribe(void** subscriber, void* callback, void* user_data) {
  (void)callback;
  (void)user_data;
  pthread_mutex_lock(&lock);
  cupti_result r = CUPTI_MULTIPLE_SUBSCRIBERS;
  if (!other_tool && subscribers == 0) {
    subscribers = 1;
    *subscriber = &subscribers;
    r = CUPTI_OK;
  }
  pthread_mutex_unlock(&lock);
  return r;
}

STAND_IN_EXPORT cupti_result cuptiUnsubscribe(void* subscriber) {
  pthread_mutex_lock(&lock);
  if (subscriber == &subscribers && subscribers > 0) subscribers = 0;
  pthread_mutex_unlock(&lock);
  return CUPTI_OK;
}
