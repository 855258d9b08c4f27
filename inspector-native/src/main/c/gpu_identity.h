/* The GPU a communicator runs on, asked of the CUDA driver at communicator init (on NCCL's init
 * thread, whose CUDA context is the communicator's). libcuda is opened with dlopen, only if it is
 * already in the process or installed: the core does not link against CUDA, and without it (a
 * replay on a machine without a GPU) the device is simply unknown. Not on the hot path. */
#ifndef NCCL_INSPECTOR_GPU_IDENTITY_H
#define NCCL_INSPECTOR_GPU_IDENTITY_H

#define GPU_UUID_CHARS 41 /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and NUL */

typedef struct gpu_identity {
  int ordinal;                /* CUDA device ordinal, -1 when unknown */
  char uuid[GPU_UUID_CHARS];  /* as nvidia-smi prints it, "" when unknown */
} gpu_identity;

gpu_identity gpu_identity_of_current_context(void);

#endif
