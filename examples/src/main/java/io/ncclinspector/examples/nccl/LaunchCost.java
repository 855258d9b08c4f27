package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cuCtxSynchronize;
import static org.bytedeco.cuda.global.cudart.cuLaunchKernel;
import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.NcclInspector;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * What a kernel launch costs the launching thread, without NCCL: an empty kernel (one block of 32
 * threads, loaded from PTX) launched flat out with {@code cuLaunchKernel}, the context synchronised
 * every {@code --sync-every} launches, timed in samples of {@code --launches}. Run once per mode in
 * its own JVM and compare in the same session:
 * <ul>
 *   <li>{@code off}: no inspector;
 *   <li>{@code on}: the inspector enabled as configured by the environment; with
 *       {@code NCCL_INSPECTOR_KERNEL_RECORDS=1} its CUPTI then records every kernel and launch API
 *       call of the process (not only NCCL's), which is the cost this program exists to show.
 * </ul>
 * A training job launches thousands of small kernels per step; CUPTI's share of each launch is
 * what kernel records add to the job beyond NCCL's callbacks.
 *
 * <p>usage: {@code LaunchCost MODE OUT_JSON [--launches N] [--samples S] [--sync-every K]}
 */
public final class LaunchCost {
  /* An empty kernel for any GPU of compute capability 7.5 or later (the driver compiles the PTX). */
  private static final String PTX = """
      .version 7.0
      .target sm_75
      .address_size 64
      .visible .entry inspector_empty()
      {
        ret;
      }
      """;

  private LaunchCost() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: LaunchCost off|on OUT_JSON [--launches N] [--samples S] [--sync-every K]");
      System.exit(2);
    }
    String mode = args[0];
    if (!mode.equals("off") && !mode.equals("on")) {
      throw new IllegalArgumentException("MODE is off or on, not " + mode);
    }
    Path out = Path.of(args[1]);
    int launches = 100_000;
    int samples = 7;
    int syncEvery = 1_000;
    for (int i = 2; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--launches" -> launches = Integer.parseInt(args[i + 1]);
        case "--samples" -> samples = Integer.parseInt(args[i + 1]);
        case "--sync-every" -> syncEvery = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    PrintStream o = System.out;
    NcclInspector inspector = mode.equals("on")
        ? NcclInspector.enable(InspectorConfig.builder().fromEnvironment().build()) : null;
    try {
      Cuda.check(cudaSetDevice(0), "cudaSetDevice");
      Cuda.check(cudaFree(null), "cudaFree (context)");
      CUmod_st module = new CUmod_st();
      Cuda.check(cuModuleLoadData(module, new BytePointer(PTX, StandardCharsets.US_ASCII)), "cuModuleLoadData");
      CUfunc_st kernel = new CUfunc_st();
      Cuda.check(cuModuleGetFunction(kernel, module, "inspector_empty"), "cuModuleGetFunction");
      CUstream_st stream = new CUstream_st((Pointer) null);
      /* Warm-up: the first launches load the module onto the GPU and JIT the JNI path. */
      run(kernel, stream, Math.max(launches / 10, syncEvery), syncEvery);
      double[] nsPerLaunch = new double[samples];
      for (int s = 0; s < samples; s++) {
        long t0 = System.nanoTime();
        run(kernel, stream, launches, syncEvery);
        nsPerLaunch[s] = (double) (System.nanoTime() - t0) / launches;
      }
      double[] sorted = nsPerLaunch.clone();
      Arrays.sort(sorted);
      double median = sorted[samples / 2];
      String kr = "off";
      long otherKernels = 0;
      if (inspector != null) {
        InspectorStatus st = inspector.status();
        kr = st.kernelRecords().map(k -> k.active() ? "active" : "inactive: " + k.reason()).orElse("off");
        /* Kernels CUPTI handed over that were not NCCL's (these launches): proof that it recorded. */
        otherKernels = inspector.counters().get("kernel_records_other");
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("mode", mode);
      result.put("kernelRecords", kr);
      result.put("otherKernelsRecorded", otherKernels);
      result.put("launches", launches);
      result.put("syncEvery", syncEvery);
      result.put("nsPerLaunch", nsPerLaunch);
      result.put("medianNsPerLaunch", median);
      new ObjectMapper().writeValue(out.toFile(), result);
      o.printf(Locale.ROOT, "launch cost, %s (kernel records %s): %d launches x %d samples, sync every %d:"
          + " median %.1f ns per launch, min %.1f, max %.1f; CUPTI kernel records of other kernels so far %d%n", mode,
          kr, launches, samples, syncEvery, median, sorted[0], sorted[samples - 1], otherKernels);
    } finally {
      if (inspector != null) {
        inspector.close();
      }
    }
  }

  private static void run(CUfunc_st kernel, CUstream_st stream, int launches, int syncEvery) {
    for (int i = 1; i <= launches; i++) {
      int rc = cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, (Pointer) null, (Pointer) null);
      if (rc != 0) {
        throw new IllegalStateException("cuLaunchKernel failed: CUDA error " + rc);
      }
      if (i % syncEvery == 0) {
        Cuda.check(cuCtxSynchronize(), "cuCtxSynchronize");
      }
    }
    Cuda.check(cuCtxSynchronize(), "cuCtxSynchronize");
  }
}
