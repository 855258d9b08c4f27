package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exporter that does not want completed operations ({@link InspectorExporter#wantsOperations()})
 * is not handed them, and counts none as dropped, while it still hears of its communicators; an
 * exporter beside it that wants them gets every one.
 */
class ExporterWantsOperationsTest {
  private static final long T0 = 1_795_942_870_000_000_000L;
  private static final int OPERATIONS = 40;
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /** What one exporter heard, in order. */
  private static final class Heard implements InspectorExporter {
    final boolean wants;
    final List<OperationRecord> operations = new CopyOnWriteArrayList<>();
    final List<String> communicators = new CopyOnWriteArrayList<>();

    Heard(boolean wants) {
      this.wants = wants;
    }

    @Override
    public boolean wantsOperations() {
      return wants;
    }

    @Override
    public void operationCompleted(OperationRecord record) {
      operations.add(record);
    }

    @Override
    public void communicatorCreated(CommunicatorInfo communicator) {
      communicators.add("created " + communicator.idHex());
    }

    @Override
    public void communicatorDestroyed(CommunicatorInfo communicator) {
      communicators.add("destroyed " + communicator.idHex());
    }
  }

  private static ExporterFactory factory(String name, Heard heard) {
    return new ExporterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public InspectorExporter start(ExporterContext context) {
        return heard;
      }
    };
  }

  @Test
  void operationsGoOnlyToTheExportersThatWantThem() throws Exception {
    SyntheticTrace s = new SyntheticTrace().init(1, 0x77L, 0, 2);
    for (int i = 0; i < OPERATIONS; i++) {
      int op = s.coll(1, "AllReduce", i, 1 << 20, "ncclFloat32", 1);
      int ch = s.kernelChannel(1, op, 0, T0 + i * 1_000_000L);
      s.stop(op).kernelChannelDone(ch, T0 + i * 1_000_000L + 10_000);
    }
    Path trace = s.fini(1).write(dir, 3);

    Heard picky = new Heard(false);
    Heard eager = new Heard(true);
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .jsonOutput(false).exporter(factory("picky", picky)).exporter(factory("eager", eager)).build());
    try (inspector; TracePlayer player = TracePlayer.open(inspector, trace)) {
      player.playAll();
      Await.until(() -> eager.operations.size() == OPERATIONS && eager.communicators.size() == 2
          && picky.communicators.size() == 2);
      inspector.close(); /* every queue delivered: nothing more can come */
      assertEquals(0, inspector.counters().get("picky_backlog_full"), "withheld operations are not drops");
      assertEquals(0, inspector.counters().get("eager_backlog_full"));
    }
    assertEquals(0, picky.operations.size(), "an exporter that wants no operations gets none");
    assertEquals(List.of("created 0x77", "destroyed 0x77"), picky.communicators);
    assertEquals(eager.communicators, picky.communicators);
    assertEquals(OPERATIONS, eager.operations.size());
  }
}
