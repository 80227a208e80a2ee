/* Converts a zipfgen .txt trace (one id per line, ../shared/tools/zipfgen.c)
 * into libCacheSim's oracleGeneral binary (24-byte records: u32 clock, u64 id,
 * u32 size, i64 next access vtime), ids hashed to 64 bits (splitmix64) as in
 * libCacheSim's own traces, size 1. BENCHMARKS.md runs flashsim and
 * libCacheSim's cachesim on the file this writes.
 *   cc -O2 -o zipf2og tools/bench/zipf_to_oracle_general.c && ./zipf2og zipf20m.txt zipf20m.oracleGeneral.bin */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#pragma pack(push, 1)
typedef struct {
  uint32_t clock;
  uint64_t id;
  uint32_t size;
  int64_t next_vtime;
} record_t;
#pragma pack(pop)

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s IDS.txt OUT.oracleGeneral.bin\n", argv[0]);
    return 2;
  }
  FILE* in = fopen(argv[1], "r");
  if (!in) { perror(argv[1]); return 1; }
  size_t n = 0, cap = 1 << 20;
  uint64_t* ids = malloc(cap * sizeof *ids);
  unsigned long long v;
  while (fscanf(in, "%llu", &v) == 1) {
    if (n == cap) ids = realloc(ids, (cap *= 2) * sizeof *ids);
    ids[n++] = v;
  }
  fclose(in);
  uint64_t max = 0;
  for (size_t i = 0; i < n; ++i) max = ids[i] > max ? ids[i] : max;
  int64_t* next = malloc((max + 1) * sizeof *next);
  for (uint64_t i = 0; i <= max; ++i) next[i] = -1;
  record_t* out = malloc(n * sizeof *out);
  for (size_t i = n; i-- > 0;) {  /* vtime of request i is i + 1 */
    out[i] = (record_t){0, splitmix64(ids[i]), 1, next[ids[i]] < 0 ? -1 : next[ids[i]] + 1};
    next[ids[i]] = (int64_t)i;
  }
  FILE* f = fopen(argv[2], "wb");
  if (!f || fwrite(out, sizeof *out, n, f) != n || fclose(f) != 0) { perror(argv[2]); return 1; }
  printf("%zu records\n", n);
  return 0;
}
