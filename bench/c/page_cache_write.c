/* Appends MIB mebibytes to a new file in 64 KiB writes (or, with "direct", 1 MiB O_DIRECT writes),
 * deletes it, and prints the wall time, the thread's CPU time per 850-byte line (a JSON record's
 * size) and its context switches: what the kernel's write path costs the JSON appending thread,
 * without the JVM. See BENCHMARKS.md ("Why the kernel's copy slows"). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double seconds(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FILE MIB [direct]\n", argv[0]);
    return 2;
  }
  size_t total = (size_t)atol(argv[2]) << 20;
  int direct = argc > 3 && strcmp(argv[3], "direct") == 0;
  size_t chunk = direct ? (size_t)1 << 20 : (size_t)1 << 16;
  char* buf;
  if (posix_memalign((void**)&buf, 4096, chunk) != 0) return 1;
  memset(buf, 'x', chunk);
  int fd = open(argv[1], O_CREAT | O_EXCL | O_WRONLY | (direct ? O_DIRECT : 0), 0644);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  struct rusage r0, r1;
  getrusage(RUSAGE_THREAD, &r0);
  double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  for (size_t off = 0; off < total; off += chunk) {
    if (write(fd, buf, chunk) != (ssize_t)chunk) {
      perror("write");
      return 1;
    }
  }
  double w1 = seconds(CLOCK_MONOTONIC), c1 = seconds(CLOCK_THREAD_CPUTIME_ID);
  getrusage(RUSAGE_THREAD, &r1);
  double lines = (double)total / 850.0;
  printf("%-8s %zu MiB: wall %.3f s, cpu %.3f s: %4.0f ns of CPU per 850-byte line; context switches %ld voluntary, %ld not\n",
         direct ? "O_DIRECT" : "buffered", total >> 20, w1 - w0, c1 - c0, (c1 - c0) / lines * 1e9,
         r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
  close(fd);
  unlink(argv[1]);
  return 0;
}
