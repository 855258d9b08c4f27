package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The network breakdown as the inspector wrote it live on the GPU machine (testdata/live/s28_java_late:
 * one H200, NCCL 2.28.9, two ranks over sockets, the Java program with {@code NcclInspector.enable()},
 * rank 1 made 5 ms late before seven of 400 AllReduces of 4 MiB). Every record has a complete
 * breakdown, and on every planted call rank 0 waited longer for rank 1's first data and named it.
 */
class LiveNetworkBreakdownTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyPlantedLateCallNamesTheLateRank() throws IOException {
    Path dir = TestData.root().resolve("live/s28_java_late");
    Set<Long> planted = new HashSet<>();
    for (JsonNode p : JSON.readTree(dir.resolve("longrun-detector-on-rank0.json").toFile()).get("planted")) {
      planted.add(p.get("call").asLong());
    }
    assertEquals(7, planted.size());
    for (String[] rank : new String[][] {{"0", "1247"}, {"1", "1248"}}) {
      List<JsonNode> records = ReferenceConformanceTest.readLines(dir.resolve("inspector/vm-pid" + rank[1] + ".log.gz"));
      assertEquals(440, records.size(), "every call recorded");
      List<Long> plantedWait = new ArrayList<>();
      List<Long> otherWait = new ArrayList<>();
      String loop = records.get(0).get("header").get("id").asText();
      for (JsonNode r : records) {
        JsonNode p = r.get("coll_perf");
        assertTrue(p.has("coll_net_proxy_ops"), "a breakdown on every record over sockets: " + p);
        assertTrue(p.has("coll_net_time_ns"), "every proxy operation finished: " + p);
        assertFalse(p.path("coll_flags").toString().contains("proxy_"), p.toString());
        if (!r.get("header").get("id").asText().equals(loop)) {
          continue; /* the second communicator */
        }
        long call = p.get("coll_api_sn").asLong();
        if (planted.contains(call)) {
          plantedWait.add(p.get("coll_net_recv_wait_ns").asLong());
          if (rank[0].equals("0")) {
            assertEquals(1, p.get("coll_net_slowest_peer").asInt(), p.toString());
          }
        } else {
          otherWait.add(p.get("coll_net_recv_wait_ns").asLong());
        }
      }
      assertEquals(7, plantedWait.size());
      long planted0 = median(plantedWait);
      long others = median(otherWait);
      if (rank[0].equals("0")) {
        /* 7.2 ms against 2.7 ms. */
        assertTrue(planted0 - others >= 4_000_000, "rank 0 planted " + planted0 + " others " + others);
      } else {
        /* The late rank itself found its peer's data waiting. */
        assertTrue(planted0 <= others, "rank 1 planted " + planted0 + " others " + others);
      }
    }
  }

  private static long median(List<Long> v) {
    List<Long> s = new ArrayList<>(v);
    s.sort(null);
    return s.get(s.size() / 2);
  }
}
