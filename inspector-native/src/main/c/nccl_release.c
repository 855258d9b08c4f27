#include "nccl_release.h"

#include <dlfcn.h>
#include <stddef.h>

typedef int (*nccl_get_version_fn)(int* version); /* ncclResult_t ncclGetVersion(int*) */

static int32_t ask(nccl_get_version_fn fn) {
  int v = 0;
  if (fn == NULL || fn(&v) != 0 || v <= 0) return 0;
  return (int32_t)v;
}

int32_t nccl_release_of_caller(const void* caller) {
  Dl_info info;
  if (caller != NULL && dladdr(caller, &info) != 0 && info.dli_fname != NULL) {
    /* RTLD_NOLOAD: only a handle to the library already mapped, never a load. */
    void* lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (lib != NULL) {
      int32_t v = ask((nccl_get_version_fn)dlsym(lib, "ncclGetVersion"));
      dlclose(lib); /* drops the reference taken above; the library stays mapped */
      if (v != 0) return v;
    }
  }
  return ask((nccl_get_version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion"));
}

int nccl_release_parts(int32_t code, int* major, int* minor, int* patch) {
  if (code < 20900) return 0; /* older codes used major * 1000 + minor * 100 + patch */
  *major = code / 10000;
  *minor = (code / 100) % 100;
  *patch = code % 100;
  return 1;
}
