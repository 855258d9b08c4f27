package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel-records setting from a user's side: asked for where CUPTI cannot be had, the
 * inspector runs as without it and its status says why, in one sentence; where CUPTI can be had,
 * nothing is said. CUPTI is the test kit's stand-in (refusing as a real CUPTI does without a GPU,
 * or not) and a path where there is none.
 */
class KernelRecordsSettingTest {
  @TempDir Path dir;

  private List<String> problemsWith(Path cupti) {
    return problemsWith(cupti, false);
  }

  private List<String> problemsWith(Path cupti, boolean shared) {
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(dir).kernelRecords(true).cuptiLibrary(cupti)
        .cuptiShared(shared).build();
    try (NcclInspector inspector = NcclInspector.enable(config)) {
      InspectorStatus status = inspector.status();
      assertEquals(InspectorStatus.State.ACTIVE, status.state());
      return status.problems().stream().filter(p -> p.contains("CUPTI")).toList();
    }
  }

  @Test
  void noCuptiLibraryIsSaidAndChangesNothingElse() {
    List<String> problems = problemsWith(dir.resolve("libcupti-missing.so"));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("CUPTI not found"), problems.get(0));
  }

  @Test
  void aCuptiThatRefusesIsSaidWithItsError() {
    ProfilerTableDriver.cuptiStandInReset(new long[0], new long[0], 0, 999);
    List<String> problems = problemsWith(Path.of(ProfilerTableDriver.libraryPath()));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("CUPTI error 999"), problems.get(0));
  }

  @Test
  void aCuptiThatStartsIsNoProblem() {
    ProfilerTableDriver.cuptiStandInReset(new long[0], new long[0], 0, 0);
    assertEquals(List.of(), problemsWith(Path.of(ProfilerTableDriver.libraryPath())));
    assertEquals(0, ProfilerTableDriver.cuptiStandInSubscribers(), "the probe gave CUPTI's subscriber slot back");
    ProfilerTableDriver.cuptiStandInReset(new long[0], new long[0], 0, 0);
    assertEquals(List.of(), problemsWith(Path.of(ProfilerTableDriver.libraryPath()), true), "shared knowingly");
  }

  @Test
  void aProfilingToolKeepsCupti() {
    ProfilerTableDriver.cuptiStandInReset(new long[0], new long[0], 0, 0);
    ProfilerTableDriver.cuptiStandInOtherTool(true);
    try {
      List<String> problems = problemsWith(Path.of(ProfilerTableDriver.libraryPath()));
      assertEquals(1, problems.size(), problems.toString());
      assertTrue(problems.get(0).contains("another CUPTI tool is subscribed"), problems.get(0));
    } finally {
      ProfilerTableDriver.cuptiStandInOtherTool(false);
    }
  }
}
