/* Stand-ins for the CUDA driver (libcuda.so) and runtime (libcudart.so.13) on a machine without a
 * GPU, for bench/callback-cost --reference only. NVIDIA's Inspector plugin will not initialise a
 * communicator unless it can dlopen libcuda, read the current device from the runtime and name that
 * device by its UUID; it uses CUDA for nothing else. These present device 0 with a fixed UUID, so
 * that its callbacks can be timed on a CPU-only machine; nothing here is on a measured path. */
#include <stddef.h>
#include <string.h>

/* Driver API (libcuda.so), resolved by the plugin with dlsym. */
int cuGetErrorString(int error, const char** text) {
  if (text != NULL) *text = error == 0 ? "no error (stub)" : "error (stub)";
  return 0;
}

int cuDeviceGet(int* device, int ordinal) {
  if (device != NULL) *device = ordinal;
  return 0;
}

int cuDeviceGetUuid(void* uuid, int device) {
  (void)device;
  if (uuid != NULL) memset(uuid, 0x5a, 16);
  return 0;
}

/* Runtime API (libcudart.so.13), linked by the plugin. */
int cudaGetDevice(int* device) {
  if (device != NULL) *device = 0;
  return 0;
}

const char* cudaGetErrorString(int error) {
  return error == 0 ? "no error (stub)" : "error (stub)";
}
