/* Which NCCL release is calling the plugin, and what that release is known to do wrong.
 *
 * NCCL exports ncclGetVersion; the core finds the copy of NCCL that called its init (the library
 * holding the caller's return address, looked up with dladdr and opened again with RTLD_NOLOAD:
 * nothing is loaded, and the right copy is found even when several NCCLs are mapped) and asks it.
 * This runs in init, never on the event hot path. */
#ifndef NCCL_INSPECTOR_NCCL_RELEASE_H
#define NCCL_INSPECTOR_NCCL_RELEASE_H

#include <stdint.h>

/* NCCL's version code (major * 10000 + minor * 100 + patch, as NCCL_VERSION_CODE since 2.9) of the
 * library that contains `caller`, or of any NCCL visible to the process if that library has no
 * ncclGetVersion; 0 when none answers. */
int32_t nccl_release_of_caller(const void* caller);

/* Forgets the releases found so far (nccl_release.c keeps them by library address); at enable. */
void nccl_release_forget(void);

/* Splits a version code into its parts; returns 0 for an unknown (0) or malformed code. */
int nccl_release_parts(int32_t code, int* major, int* minor, int* patch);

/* NCCL 2.29.2 and later route ncclBroadcast through their AllGatherV path (NCCL_ALLGATHERV_ENABLE,
 * on by default) and emit no Coll or kernel event for it (NCCL PR 2368, issue 2278). */
#define NCCL_RELEASE_BROADCAST_WITHOUT_EVENTS 22902

#endif
