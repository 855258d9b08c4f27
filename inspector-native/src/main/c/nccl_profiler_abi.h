/*
 * Our own declarations of NCCL's profiler-plugin ABI, interface versions 1 to 6.
 *
 * Written from the layout facts in shared/docs/nccl-profiler-facts.md section 2 (x86-64 offsets,
 * verified there against NCCL's headers). Every offset that the core depends on is pinned with a
 * static assertion at the end of this file, so a wrong declaration fails the build, not a run.
 *
 * This header is C11 and is included only by the C core and the table driver; Java never sees it.
 */
#ifndef NCCL_INSPECTOR_PROFILER_ABI_H
#define NCCL_INSPECTOR_PROFILER_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6
} ncclResult_t;

typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

/* Subsystem flag NCCL uses for profiler messages. */
#define NCCL_LOG_SUBSYS_PROFILE 16384UL

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char* file,
                                  int line, const char* fmt, ...);

/* Event type bits: the descriptor's type field holds exactly one of them. */
enum {
  ncclProfileGroup = 1 << 0,
  ncclProfileColl = 1 << 1,
  ncclProfileP2p = 1 << 2,
  ncclProfileProxyOp = 1 << 3,
  ncclProfileProxyStep = 1 << 4,
  ncclProfileProxyCtrl = 1 << 5,
  ncclProfileKernelCh = 1 << 6,
  ncclProfileNetPlugin = 1 << 7,
  ncclProfileGroupApi = 1 << 8,
  ncclProfileCollApi = 1 << 9,
  ncclProfileP2pApi = 1 << 10,
  ncclProfileKernelLaunch = 1 << 11,
  ncclProfileCeColl = 1 << 12,
  ncclProfileCeSync = 1 << 13,
  ncclProfileCeBatch = 1 << 14
};

/* Event states: one C enum shared by every interface version (4 bytes). */
typedef enum {
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendWait = 9,
  ncclProfilerProxyStepRecvWait = 10,
  ncclProfilerProxyStepRecvFlushWait = 11,
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,
  ncclProfilerNetPluginUpdate = 21,
  ncclProfilerKernelChStop = 22,
  ncclProfilerGroupStartApiStop = 23,
  ncclProfilerGroupEndApiStart = 24
} ncclProfilerEventState_t;

/* ---- interface version 5 (NCCL 2.28; also served by 2.29/2.30 through their v5 adapter) ---- */

typedef struct {
  uint64_t type;   /* @0 */
  void* parentObj; /* @8 */
  int rank;        /* @16 */
  union {          /* @24 */
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v5_t;

/* State arguments of v4, v5 and v6: an 8-byte union, every member at offset 0. */
typedef union {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
} ncclProfilerEventStateArgs_v5_t;

typedef ncclProfilerEventState_t ncclProfilerEventState_v5_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName,
                       int nNodes, int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_v5_t eState,
                                   ncclProfilerEventStateArgs_v5_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v5_t;

/* ---- interface version 4 (NCCL 2.27) ---- */

typedef struct {
  uint8_t type;    /* @0, then 7 bytes of padding */
  void* parentObj; /* @8: for Coll and P2p this is the Group event (v4 has no API events) */
  int rank;        /* @16 */
  union {          /* @24 */
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v4_t;

typedef ncclProfilerEventStateArgs_v5_t ncclProfilerEventStateArgs_v4_t;
typedef ncclProfilerEventState_t ncclProfilerEventState_v4_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash,
                       int nNodes, int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_v4_t eState,
                                   ncclProfilerEventStateArgs_v4_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v4_t;

/* ---- interface version 6 (NCCL 2.29, 2.30): v5 plus copy-engine collectives ---- */

typedef struct {
  uint64_t type;   /* @0 */
  void* parentObj; /* @8 */
  int rank;        /* @16 */
  union {          /* @24: every member shared with v5 sits at the same offset */
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void* stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
      void* parentGroup;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void* parentGroup;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
    struct {
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      const char* syncStrategy;
      bool intraBatchSync;
      uint32_t batchSize;
      uint32_t numBatches;
      uint32_t ceSeqNum;
      void* stream;
    } ceColl;
    struct {
      bool isComplete;
      int nRanks;
    } ceCollSync;
    struct {
      int numOps;
      size_t totalBytes;
      bool useIntraSync;
    } ceCollBatch;
  };
} ncclProfilerEventDescr_v6_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName,
                       int nNodes, int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v6_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v5_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v6_t;

/* ---- interface version 3 (NCCL 2.26): strings, kernel channels without timestamps ---- */

typedef struct {
  uint8_t type;    /* @0 */
  void* parentObj; /* @8: for Coll and P2p the Group event */
  int rank;        /* @16 */
  union {          /* @24 */
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v3_t;

/* State arguments of v1, v2 and v3: 16 bytes. */
typedef union {
  struct {
    size_t transSize;
    int steps;
  } proxyOp;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
} ncclProfilerEventStateArgs_v3_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v3_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v3_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v3_t;

/* ---- interface version 2 (NCCL 2.24, 2.25): v3's strings plus trafficBytes, no kernel channels ---- */

typedef struct {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char* func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      const char* datatype;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
  };
} ncclProfilerEventDescr_v2_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v2_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v3_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v2_t;

/* ---- interface version 1 (NCCL 2.23): enums instead of strings ---- */

typedef struct {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    struct {
      const char* name;
      uint64_t commHash;
      uint64_t seqNumber;
      uint8_t func;
      const void* sendBuff;
      void* recvBuff;
      size_t count;
      int root;
      uint8_t datatype;
      uint32_t op;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      uint8_t algo;
      uint8_t proto;
      int isCollnet;
      int isNvls;
    } coll;
    struct {
      const char* name;
      uint64_t commHash;
      uint8_t func;
      void* buff;
      uint8_t datatype;
      size_t count;
      int peer;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
  };
} ncclProfilerEventDescr_v1_t;

typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v1_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v3_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v1_t;

/* ---- layout pins (facts doc section 2.5, x86-64) ---- */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(ncclProfilerEventDescr_v5_t) == 112, "v5 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, parentObj) == 8, "v5 parentObj");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, rank) == 16, "v5 rank");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.seqNumber) == 24, "v5 coll.seqNumber");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.func) == 32, "v5 coll.func");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.count) == 56, "v5 coll.count");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.root) == 64, "v5 coll.root");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.datatype) == 72, "v5 coll.datatype");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.nChannels) == 80, "v5 coll.nChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.nWarps) == 81, "v5 coll.nWarps");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.algo) == 88, "v5 coll.algo");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.proto) == 96, "v5 coll.proto");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll.parentGroup) == 104, "v5 coll.parentGroup");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, p2p.datatype) == 40, "v5 p2p.datatype");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, p2p.count) == 48, "v5 p2p.count");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, p2p.peer) == 56, "v5 p2p.peer");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, p2p.nChannels) == 60, "v5 p2p.nChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, p2p.parentGroup) == 64, "v5 p2p.parentGroup");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, kernelCh.channelId) == 24, "v5 kernelCh.channelId");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, kernelCh.pTimer) == 32, "v5 kernelCh.pTimer");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, proxyOp.pid) == 24, "v5 proxyOp.pid");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, proxyOp.isSend) == 44, "v5 proxyOp.isSend");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, collApi.graphCaptured) == 64, "v5 collApi.graphCaptured");
_Static_assert(offsetof(ncclProfilerEventDescr_v5_t, groupApi.groupDepth) == 28, "v5 groupApi.groupDepth");
_Static_assert(sizeof(ncclProfilerEventDescr_v4_t) == 104, "v4 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, parentObj) == 8, "v4 parentObj");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.nChannels) == 80, "v4 coll.nChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll.proto) == 96, "v4 coll.proto");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, p2p.peer) == 56, "v4 p2p.peer");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, p2p.nChannels) == 60, "v4 p2p.nChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v4_t, kernelCh.pTimer) == 32, "v4 kernelCh.pTimer");
_Static_assert(sizeof(ncclProfilerEventStateArgs_v5_t) == 8, "state args size");
_Static_assert(sizeof(ncclProfilerEventDescr_v6_t) == 112, "v6 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, coll.parentGroup) == 104, "v6 coll.parentGroup");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, kernelCh.pTimer) == 32, "v6 kernelCh.pTimer");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceColl.datatype) == 72, "v6 ceColl.datatype");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceColl.syncStrategy) == 80, "v6 ceColl.syncStrategy");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceColl.batchSize) == 92, "v6 ceColl.batchSize");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceColl.ceSeqNum) == 100, "v6 ceColl.ceSeqNum");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceColl.stream) == 104, "v6 ceColl.stream");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceCollSync.nRanks) == 28, "v6 ceCollSync.nRanks");
_Static_assert(offsetof(ncclProfilerEventDescr_v6_t, ceCollBatch.totalBytes) == 32, "v6 ceCollBatch.totalBytes");
_Static_assert(sizeof(ncclProfilerEventDescr_v3_t) == 120, "v3 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.commHash) == 32, "v3 coll.commHash");
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.seqNumber) == 40, "v3 coll.seqNumber");
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.nMaxChannels) == 96, "v3 coll.nMaxChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, coll.proto) == 112, "v3 coll.proto");
_Static_assert(offsetof(ncclProfilerEventDescr_v3_t, p2p.peer) == 72, "v3 p2p.peer");
_Static_assert(sizeof(ncclProfilerEventStateArgs_v3_t) == 16, "v3 state args size");
_Static_assert(sizeof(ncclProfilerEventDescr_v2_t) == 128, "v2 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.trafficBytes) == 96, "v2 coll.trafficBytes");
_Static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.nMaxChannels) == 104, "v2 coll.nMaxChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v2_t, coll.proto) == 120, "v2 coll.proto");
_Static_assert(sizeof(ncclProfilerEventDescr_v1_t) == 120, "v1 descriptor size");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.func) == 48, "v1 coll.func");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.datatype) == 84, "v1 coll.datatype");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.op) == 88, "v1 coll.op");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.nMaxChannels) == 104, "v1 coll.nMaxChannels");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.proto) == 107, "v1 coll.proto");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, coll.isNvls) == 112, "v1 coll.isNvls");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, p2p.func) == 40, "v1 p2p.func");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, p2p.datatype) == 56, "v1 p2p.datatype");
_Static_assert(offsetof(ncclProfilerEventDescr_v1_t, p2p.peer) == 72, "v1 p2p.peer");
_Static_assert(sizeof(ncclProfiler_v5_t) == 48, "v5 table size");
_Static_assert(sizeof(ncclProfiler_v4_t) == 48, "v4 table size");
#endif

/* Reads a descriptor's `bool` as the byte it is: NCCL writes 0 or 1, but a corrupt or hostile
 * descriptor may hold any value, and loading that as _Bool is undefined behaviour. */
#define ABI_BOOL(member) (*(const unsigned char*)&(member) != 0)

#endif
