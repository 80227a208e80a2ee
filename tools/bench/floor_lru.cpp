// The floor of an LRU replay on this machine (BENCHMARKS.md, issue 27): ids
// read from a zipfgen .txt into memory, dense, one 32-byte record and two
// links a block, prefetched 8 accesses ahead; no protocol around it.
//   g++ -O2 -o floor_lru tools/bench/floor_lru.cpp && ./floor_lru zipf20m.txt 10000 1
// args: IDS.txt CAPACITY_BLOCKS PREFETCH_LINKS(0|1)
#include <cstdio>
#include <cstdint>
#include <vector>
#include <chrono>
#include <cstdlib>
int main(int argc,char**argv){
  FILE*f=fopen(argv[1],"r"); std::vector<uint32_t> ids; ids.reserve(20000000); unsigned long x;
  while(fscanf(f,"%lu",&x)==1) ids.push_back((uint32_t)x);
  size_t cap=atoi(argv[2]); int layout=atoi(argv[3]);
  size_t n=1000001;
  struct Node{uint32_t prev,next; uint8_t state; uint8_t pad[3]; uint64_t bytes; uint64_t slot[2];}; // 32B like Entry
  struct Link{uint32_t prev,next; uint8_t held;};
  std::vector<Node> e(n); std::vector<Link> l(n);
  const uint32_t NONE=~0u; uint32_t head=NONE,tail=NONE; size_t size=0; uint64_t hits=0;
  auto t0=std::chrono::steady_clock::now();
  for(size_t i=0;i<ids.size();++i){
    if(i+8<ids.size()){ __builtin_prefetch(&e[ids[i+8]]); if(layout) __builtin_prefetch(&l[ids[i+8]]);}
    uint32_t b=ids[i];
    auto unlink=[&](uint32_t b){Link&L=l[b]; if(L.prev!=NONE) l[L.prev].next=L.next; else head=L.next; if(L.next!=NONE) l[L.next].prev=L.prev; else tail=L.prev;};
    auto pushf=[&](uint32_t b){l[b].prev=NONE; l[b].next=head; if(head!=NONE) l[head].prev=b; else tail=b; head=b;};
    if(e[b].state){ ++hits; if(head!=b){unlink(b); pushf(b);} }
    else { if(size==cap){ uint32_t v=tail; unlink(v); e[v].state=0; --size; if(tail!=NONE) __builtin_prefetch(&e[tail]);} e[b].state=1; e[b].bytes=1; pushf(b); ++size; }
  }
  double s=std::chrono::duration<double>(std::chrono::steady_clock::now()-t0).count();
  printf("hit ratio %.4f  %.1f M/s  %.1f ns/acc\n",(double)hits/ids.size(),ids.size()/s/1e6,s*1e9/ids.size());
}
