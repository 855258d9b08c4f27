/* What the cut after each O_DIRECT write costs: appends MIB mebibytes to a new file as
 * DirectAppendChannel does (1 MiB writes of lines that end mid-block, the last block padded and
 * written again by the next write), once with an ftruncate to the accepted bytes after every write
 * (as before cfc4ffc) and once without (the padding cut only at the end), and prints the wall time
 * per write of each. See BENCHMARKS.md ("The appending thread's chunks"). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Returns the microseconds a write took on average, or a negative value on failure. */
static double run(const char* file, long total, long accepted, int cut) {
  char* buf;
  if (posix_memalign((void**)&buf, BLOCK, (size_t)(accepted + 2 * BLOCK)) != 0) return -1;
  memset(buf, 'x', (size_t)(accepted + 2 * BLOCK));
  int fd = open(file, O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0644);
  if (fd < 0) {
    perror(file);
    free(buf);
    return -1;
  }
  long end = 0, tail_start = 0, writes = 0;
  double t0 = now();
  while (end < total) {
    long new_end = end + accepted;
    long padded = (new_end - tail_start + BLOCK - 1) / BLOCK * BLOCK;
    if (pwrite(fd, buf, (size_t)padded, tail_start) != padded) {
      perror("pwrite");
      break;
    }
    if (cut && ftruncate(fd, new_end) != 0) {
      perror("ftruncate");
      break;
    }
    end = new_end;
    tail_start = end / BLOCK * BLOCK;
    writes++;
  }
  if (ftruncate(fd, end) != 0) perror("ftruncate");
  double t = now() - t0;
  close(fd);
  unlink(file);
  free(buf);
  return writes > 0 ? t / (double)writes * 1e6 : -1;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s FILE MIB ROUNDS\n", argv[0]);
    return 2;
  }
  long total = atol(argv[2]) << 20;
  int rounds = atoi(argv[3]);
  long accepted = (1L << 20) - 837; /* a 1 MiB write of whole lines ends mid-block */
  for (int r = 1; r <= rounds; r++) {
    double with = run(argv[1], total, accepted, 1);
    double without = run(argv[1], total, accepted, 0);
    if (with < 0 || without < 0) return 1;
    printf("round %d: cut after every write %.0f us a write, cut at the end only %.0f us (%.2f)\n", r, with,
           without, without / with);
  }
  return 0;
}
