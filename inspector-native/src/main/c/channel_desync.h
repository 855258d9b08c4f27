/* NCCL's kernel-channel profiler counter desync, predicted and latched per communicator channel.
 *
 * NCCL hands the plugin a kernel channel's GPU timestamps from a ring of 64 slots per channel that
 * the device fills with a work counter; the host finds the slot of an operation's work item by its
 * own copy of that counter, which it advances once per profiler proxy operation (src/proxy.cc).
 * A send/recv to the own rank (part of every AlltoAll) runs a profiled work item on the GPU but gets
 * no proxy operation (src/enqueue.cc: nProxyOps = selfSend ? 0 : 2): from then on the host is one
 * work item behind on each channel that work item ran on, for good, and every KernelCh start/stop
 * of that channel carries an earlier work item's timestamps (facts doc §3.4.1). NCCL 2.28.9 to
 * 2.30 behave so.
 *
 * Prediction: a self send/recv of n channels runs on channels 0..n-1 (its P2P round is 0, whose
 * channel base is 0: ncclP2pChannelBaseForRound / ncclP2pChannelForPart), so those channels of its
 * communicator lag from its start on. Each operation takes a snapshot of its communicator's lagging
 * channels when it starts; a lag noted later does not apply to it (its proxy operations were posted
 * first). Detection (op_timing.c) latches a channel that evidently lags although nothing predicted
 * it. Nothing ever clears a lag: NCCL's counters never catch up. */
#ifndef NCCL_INSPECTOR_CHANNEL_DESYNC_H
#define NCCL_INSPECTOR_CHANNEL_DESYNC_H

#include <stdint.h>

#include "comm_table.h"

/* A send or receive of `n_channels` channels to the own rank started on communicator c. */
void desync_note_self_p2p(comm_slot* c, uint8_t n_channels);

/* The channels (bit = NCCL channel id) of communicator c whose timestamps lag, as of now. */
uint64_t desync_lagging_channels(const comm_slot* c);

/* Marks `channels` of the communicator in table slot `index` (generation `gen`, serial `serial`) as
 * lagging, if that communicator is still live. Returns the channels newly marked. */
uint64_t desync_latch(uint32_t index, uint32_t gen, uint64_t serial, uint64_t channels);

#endif
