package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaDeviceCanAccessPeer;
import static org.bytedeco.cuda.global.cudart.cudaDriverGetVersion;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties;
import static org.bytedeco.cuda.global.cudart.cudaRuntimeGetVersion;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.cuda.cudart.cudaDeviceProp;

/**
 * A few seconds' check, before the long runs, that this JVM can reach everything they need: the
 * CUDA runtime and driver through the JavaCPP presets, the GPUs and whether they reach each other
 * directly, NCCL, and CUPTI (with {@code --cupti}). Prints one line per fact; exits 1 if CUDA or
 * NCCL cannot be used (CUPTI missing is reported, not fatal).
 *
 * <p>{@code --no-gpu} instead checks, on any machine, that a packed runtime (examples/pack-gpu.sh)
 * holds what the programs load: the CUDA presets' classes, Jackson, and the inspector, which it
 * enables (no NCCL comes) and closes.
 */
public final class GpuPreflight {
  private GpuPreflight() {}

  public static void main(String[] args) throws Exception {
    Args a = Args.parse(args, "cupti", "no-gpu");
    boolean cupti = a.flag("cupti");
    boolean noGpu = a.flag("no-gpu");
    Path dir = Path.of(a.string("out", System.getProperty("java.io.tmpdir")));
    a.rejectUnknown();
    PrintStream out = System.out;
    if (noGpu) {
      runtimeCheck(dir, out);
      return;
    }
    out.println("java " + System.getProperty("java.version") + " " + System.getProperty("java.vm.name"));
    try {
      int[] v = new int[1];
      Cuda.check(cudaRuntimeGetVersion(v), "cudaRuntimeGetVersion");
      int runtime = v[0];
      Cuda.check(cudaDriverGetVersion(v), "cudaDriverGetVersion");
      out.printf("CUDA runtime %d, driver supports %d%n", runtime, v[0]);
      Cuda.check(cudaGetDeviceCount(v), "cudaGetDeviceCount");
      int n = v[0];
      for (int d = 0; d < n; d++) {
        cudaDeviceProp p = new cudaDeviceProp();
        Cuda.check(cudaGetDeviceProperties(p, d), "cudaGetDeviceProperties");
        StringBuilder peers = new StringBuilder();
        for (int e = 0; e < n; e++) {
          if (e != d) {
            int[] can = new int[1];
            Cuda.check(cudaDeviceCanAccessPeer(can, d, e), "cudaDeviceCanAccessPeer");
            peers.append(' ').append(e).append(can[0] != 0 ? ":peer" : ":no-peer");
          }
        }
        out.printf("GPU %d: %s, %d MiB, PCI bus %d;%s%n", d, p.name().getString(), p.totalGlobalMem() >> 20,
            p.pciBusID(), peers);
      }
      Cuda.nccl(ncclGetVersion(v), "ncclGetVersion");
      out.println("NCCL " + v[0]);
    } catch (Throwable t) {
      out.println("preflight FAILED: " + t);
      System.exit(1);
    }
    if (cupti) {
      Cupti c = Cupti.start(out);
      if (c != null) {
        out.println("CUPTI ok (version " + c.version() + ")");
        c.close();
      }
    }
  }

  static void runtimeCheck(Path dir, PrintStream out) throws Exception {
    ClassLoader cl = GpuPreflight.class.getClassLoader();
    for (String c : new String[] {"org.bytedeco.cuda.global.cudart", "org.bytedeco.cuda.global.nccl",
        "org.bytedeco.cuda.global.cupti", "org.bytedeco.cuda.cupti.CUpti_ActivityKernel12",
        "com.fasterxml.jackson.databind.ObjectMapper", "io.ncclinspector.nativecore.InspectorNative"}) {
      Class.forName(c, false, cl);
    }
    Path d = Files.createDirectories(dir.resolve("preflight-inspector"));
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(d).build())) {
      out.println("runtime check: inspector enabled from " + inspector.status().libraryPath().orElseThrow()
          + ", output " + inspector.status().output().map(o -> o.file()).map(Path::toString).orElse("(none)"));
    }
    out.println("runtime check: ok (" + System.getProperty("java.home") + ")");
  }
}
