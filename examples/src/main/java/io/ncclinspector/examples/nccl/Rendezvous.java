package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.nccl.ncclGetUniqueId;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.bytedeco.cuda.nccl.ncclUniqueId;

/** How the ranks of one run meet: rank 0 writes NCCL's unique id to a file (atomically), the others wait for it. */
final class Rendezvous {
  private static final int ID_BYTES = 128; /* NCCL_UNIQUE_ID_BYTES */

  private Rendezvous() {}

  static ncclUniqueId meet(int rank, Path idFile) throws IOException, InterruptedException {
    ncclUniqueId id = new ncclUniqueId();
    if (rank == 0) {
      Cuda.nccl(ncclGetUniqueId(id), "ncclGetUniqueId");
      byte[] bytes = new byte[ID_BYTES];
      for (int i = 0; i < ID_BYTES; i++) {
        bytes[i] = id.internal(i);
      }
      Path tmp = idFile.resolveSibling(idFile.getFileName() + ".tmp");
      Files.write(tmp, bytes);
      Files.move(tmp, idFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } else {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (!Files.exists(idFile)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("rank 0 did not write " + idFile);
        }
        Thread.sleep(20);
      }
      byte[] bytes = Files.readAllBytes(idFile);
      for (int i = 0; i < ID_BYTES; i++) {
        id.internal(i, bytes[i]);
      }
    }
    return id;
  }

  /**
   * A name for this run that all ranks share: the first 8 bytes of NCCL's unique id in hex (the
   * random magic of its bootstrap handle), so files named with it never meet a stale one.
   */
  static String token(ncclUniqueId id) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      b.append(String.format("%02x", id.internal(i) & 0xff));
    }
    return b.toString();
  }
}
