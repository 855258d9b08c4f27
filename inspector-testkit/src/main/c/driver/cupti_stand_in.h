/* A stand-in for CUPTI's activity interface, for tests and replays on machines without a GPU.
 *
 * It exports the CUPTI functions the inspector's kernel records load by name (the inspector is
 * pointed at this library with NCCL_INSPECTOR_CUPTI_LIBRARY), and plays a CUPTI that saw NCCL's
 * kernels run: each external id pushed (one per kernel launch NCCL reports) is the launch of the
 * next kernel of a list given beforehand, whose record, with that kernel's start and end, comes
 * with the launch's external correlation record at the next flush (written, as by CUPTI, only
 * where API records of the launch function are on). It checks what a real CUPTI
 * would refuse: a pop without a push, records asked for before a buffer was given. */
#ifndef NCCL_INSPECTOR_CUPTI_STAND_IN_H
#define NCCL_INSPECTOR_CUPTI_STAND_IN_H

#ifdef __cplusplus
extern "C" {
#endif

/* Forgets everything; the kernels of launches 0..n-1 (in push order) run from starts[i] to ends[i]
 * (ns); a launch whose start is negative, or past n, ran no kernel CUPTI saw. Enabling fails with
 * `enable_error` when it is not 0 (as CUPTI does without a GPU: 999). */
void cupti_stand_in_reset(const long long* starts, const long long* ends, int n, int enable_error);
/* Another CUPTI tool holds (1) or leaves (0) CUPTI's one subscriber slot; a reset frees it. */
void cupti_stand_in_other_tool(int subscribed);
/* Subscribers of the stand-in's own holding the slot now (0 or 1): a probe must give it back. */
int cupti_stand_in_subscribers(void);
/* What happened since the reset: pushes, pops, pops without a push. */
long long cupti_stand_in_pushes(void);
long long cupti_stand_in_pops(void);
long long cupti_stand_in_unbalanced_pops(void);

#ifdef __cplusplus
}
#endif

#endif
