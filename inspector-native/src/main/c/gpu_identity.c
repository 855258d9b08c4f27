#include "gpu_identity.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int (*cu_ctx_get_device_fn)(int* device);
typedef int (*cu_device_get_uuid_fn)(unsigned char uuid[16], int device);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cu_ctx_get_device_fn ctx_get_device;
static cu_device_get_uuid_fn device_get_uuid;

static void load(void) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (lib == NULL) lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return; /* no driver: a replay without a GPU */
  ctx_get_device = (cu_ctx_get_device_fn)dlsym(lib, "cuCtxGetDevice");
  device_get_uuid = (cu_device_get_uuid_fn)dlsym(lib, "cuDeviceGetUuid_v2");
  if (device_get_uuid == NULL) device_get_uuid = (cu_device_get_uuid_fn)dlsym(lib, "cuDeviceGetUuid");
}

gpu_identity gpu_identity_of_current_context(void) {
  gpu_identity id = {-1, ""};
  pthread_once(&once, load);
  int device = -1;
  if (ctx_get_device == NULL || ctx_get_device(&device) != 0 || device < 0) return id;
  id.ordinal = device;
  unsigned char u[16];
  if (device_get_uuid != NULL && device_get_uuid(u, device) == 0) {
    snprintf(id.uuid, sizeof(id.uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  }
  return id;
}
