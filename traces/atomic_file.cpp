#include "traces/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "sim/core/errors.h"

namespace flashsim {

namespace {

// The process umask, read without changing it (Linux ≥ 4.7 reports it in
// /proc/self/status); 022 if unavailable.
mode_t current_umask() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  mode_t mask = 022;
  if (f == nullptr) return mask;
  char line[256];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned value = 0;
    if (std::sscanf(line, "Umask: %o", &value) == 1) {
      mask = static_cast<mode_t>(value);
      break;
    }
  }
  std::fclose(f);
  return mask;
}

// --- the registry of live temp files, read by the signal handler ---
// A fixed table: the handler may neither allocate nor take locks. Each slot
// goes free -> filling -> live (path readable) and back to free; the cleanup
// claims a live slot (removing -> removed) before reading its path, so a
// path is never read while it is being written.
constexpr std::size_t kMaxTempPath = 4096;
enum SlotState : int { kFree, kFilling, kLive, kRemoving, kRemoved };
struct TempSlot {
  std::atomic<int> state{kFree};
  char path[kMaxTempPath];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
TempSlot g_temp_slots[kMaxLiveTempFiles];

// The slot now holding `path`, or -1 if the table is full or the path too long.
int register_temp(const std::string& path) noexcept {
  if (path.size() >= kMaxTempPath) return -1;
  for (int i = 0; i < kMaxLiveTempFiles; ++i) {
    int expected = kFree;
    if (g_temp_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
      g_temp_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void unregister_temp(int slot) noexcept {
  if (slot < 0) return;
  int expected = kLive;
  if (g_temp_slots[slot].state.compare_exchange_strong(expected, kFree)) return;
  // Already removed by remove_live_temp_files(): free the slot. (kRemoving:
  // a signal handler is at work on another thread; the process is dying.)
  if (expected == kRemoved) g_temp_slots[slot].state.store(kFree);
}

extern "C" void remove_temps_and_reraise(int signal_number) {
  const int saved_errno = errno;
  remove_live_temp_files();
  errno = saved_errno;
  // SA_RESETHAND restored the default action: die of the same signal.
  ::raise(signal_number);
}

}  // namespace

void remove_live_temp_files() noexcept {
  // Files first, then (second pass) the folders that held them: unlink(2)
  // refuses a folder, so what it refused is a folder, removed by rmdir(2).
  bool folder[kMaxLiveTempFiles] = {};
  for (int i = 0; i < kMaxLiveTempFiles; ++i) {
    TempSlot& slot = g_temp_slots[i];
    int expected = kLive;
    if (slot.state.compare_exchange_strong(expected, kRemoving, std::memory_order_acquire)) {
      if (::unlink(slot.path) != 0 && (errno == EISDIR || errno == EPERM)) {
        folder[i] = true;
        continue;
      }
      slot.state.store(kRemoved, std::memory_order_release);
    }
  }
  // Nested folders (a results folder created with its parents) go
  // innermost first whatever their slots: repeat while a pass removes one.
  for (bool removed_one = true; removed_one;) {
    removed_one = false;
    for (int i = 0; i < kMaxLiveTempFiles; ++i) {
      if (folder[i] && ::rmdir(g_temp_slots[i].path) == 0) {
        folder[i] = false;
        removed_one = true;
      }
    }
  }
  for (int i = 0; i < kMaxLiveTempFiles; ++i) {
    if (g_temp_slots[i].state.load(std::memory_order_relaxed) == kRemoving) {
      g_temp_slots[i].state.store(kRemoved, std::memory_order_release);
    }
  }
}

SignalCleanupGuard::SignalCleanupGuard(const std::filesystem::path& path) noexcept {
  try {
    slot_ = register_temp(path.string());
  } catch (...) {  // path.string() allocating: then not cleaned on a signal
    slot_ = -1;
  }
}

SignalCleanupGuard::~SignalCleanupGuard() { unregister_temp(slot_); }

void remove_temp_files_on_signals() {
  for (const int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction old_action {};
    if (::sigaction(signal_number, nullptr, &old_action) == 0 && old_action.sa_handler == SIG_IGN) {
      continue;  // ignored by whoever started us (e.g. nohup, `cmd &`): keep it so
    }
    struct sigaction action {};
    action.sa_handler = remove_temps_and_reraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(signal_number, &action, nullptr);
  }
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  // The rename would replace whatever is there: as root, `--json /dev/null`
  // turned /dev/null into a regular file. Only a regular file (or nothing) may be replaced.
  std::error_code ec;
  const auto status = std::filesystem::status(target_, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw InputError(target_.string() + ": exists and is not a regular file (" +
                     (std::filesystem::is_directory(status) ? std::string("a directory")
                                                            : std::string("a device, FIFO or socket")) +
                     "): refusing to replace it");
  }
  std::string pattern = target_.string() + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    throw Error("cannot create a temporary file beside '" + target_.string() + "': " + std::strerror(errno));
  }
  // mkstemp makes the file 0600; give it the mode a plain create would (0666 & ~umask).
  static const mode_t mode = 0666 & ~current_umask();
  ::fchmod(fd, mode);
  ::close(fd);
  temp_ = pattern;
  slot_ = register_temp(pattern);
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::commit() {
  if (done_) throw Error("internal: '" + target_.string() + "' committed twice");
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec) {
    discard();
    throw Error("cannot rename '" + temp_.string() + "' to '" + target_.string() + "': " + ec.message());
  }
  done_ = true;
  unregister_temp(slot_);
  slot_ = -1;
}

void AtomicFile::discard() noexcept {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
  done_ = true;
  unregister_temp(slot_);
  slot_ = -1;
}

void write_file_atomically(const std::filesystem::path& target, std::string_view text) {
  AtomicFile file(target);
  {
    std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw Error("cannot write '" + file.temp_path().string() + "' (for '" + target.string() + "')");
  }
  file.commit();
}

std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& dir, std::string_view marker) {
  std::vector<std::filesystem::path> removed;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t at = name.find(marker);
    if (at == std::string::npos) continue;
    std::size_t i = at + marker.size(), digits = 0;
    long long pid = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10) pid = pid * 10 + (name[i++] - '0'), ++digits;
    if (digits == 0 || i >= name.size() || name[i] != '-' || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code rm;
    if (std::filesystem::remove_all(it->path(), rm) > 0 && !rm) removed.push_back(it->path());
  }
  return removed;
}

std::string describe_removed(const std::vector<std::filesystem::path>& removed) {
  if (removed.empty()) return "";
  std::string out = "removed " + std::to_string(removed.size()) + " temp file" + (removed.size() > 1 ? "s" : "") +
                    " left by killed runs:";
  for (const auto& p : removed) out += " " + p.string();
  return out;
}

}  // namespace flashsim
