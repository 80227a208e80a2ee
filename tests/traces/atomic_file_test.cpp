// AtomicFile: temp beside the target, commit renames, drop removes; and the
// registry of live temp files that SIGINT/SIGTERM clean up.
#include "traces/atomic_file.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "sim/core/errors.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::TempDir;

int count_temp_files(const std::filesystem::path& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
  }
  return n;
}

TEST(AtomicFile, CommitRenamesAndDropRemoves) {
  TempDir dir;
  {
    AtomicFile kept(dir / "kept");
    AtomicFile dropped(dir / "dropped");
    EXPECT_EQ(kept.temp_path().parent_path(), dir.path());
    EXPECT_EQ(kept.temp_path().filename().string().rfind("kept.tmp-", 0), 0u);
    EXPECT_EQ(count_temp_files(dir.path()), 2);
    kept.commit();
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "kept"));
  EXPECT_FALSE(std::filesystem::exists(dir / "dropped"));
  EXPECT_EQ(count_temp_files(dir.path()), 0);
}

TEST(AtomicFile, SignalCleanupRemovesExactlyTheLiveTemps) {
  TempDir dir;
  AtomicFile live_a(dir / "a");
  AtomicFile live_b(dir / "b");
  AtomicFile committed(dir / "c");
  AtomicFile discarded(dir / "d");
  std::ofstream(committed.temp_path()) << "done";
  committed.commit();
  discarded.discard();
  ASSERT_EQ(count_temp_files(dir.path()), 2);

  remove_live_temp_files();  // what the SIGINT/SIGTERM handler calls

  EXPECT_FALSE(std::filesystem::exists(live_a.temp_path()));
  EXPECT_FALSE(std::filesystem::exists(live_b.temp_path()));
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  std::ifstream in(dir / "c");
  std::string text;
  in >> text;
  EXPECT_EQ(text, "done");  // a committed file is not touched
  // The removed temps cannot be committed any more.
  EXPECT_THROW(live_a.commit(), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "a"));
}

TEST(AtomicFile, RegistrySlotsAreReusedAndOverflowIsHarmless) {
  TempDir dir;
  // Many rounds of more files than the registry holds: slots of dropped
  // files are freed, and files beyond the table still work (only the signal
  // cleanup does not know them).
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<AtomicFile>> files;
    for (int i = 0; i < kMaxLiveTempFiles + 8; ++i) {
      files.push_back(std::make_unique<AtomicFile>(dir / ("f" + std::to_string(i))));
    }
    EXPECT_EQ(count_temp_files(dir.path()), kMaxLiveTempFiles + 8);
    remove_live_temp_files();
    EXPECT_EQ(count_temp_files(dir.path()), 8) << "round " << round;
  }
  EXPECT_EQ(count_temp_files(dir.path()), 0);
  // The table is free again: a new file is registered and cleaned up.
  AtomicFile fresh(dir / "fresh");
  remove_live_temp_files();
  EXPECT_FALSE(std::filesystem::exists(fresh.temp_path()));
}

TEST(AtomicFile, SigtermRemovesTempsAndKillsWithTheSameSignal) {
  TempDir dir;
  EXPECT_EXIT(
      {
        remove_temp_files_on_signals();
        AtomicFile output(dir / "out");
        std::raise(SIGTERM);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(count_temp_files(dir.path()), 0);
}

TEST(AtomicFile, SignalCleanupRemovesGuardedFoldersAfterTheirFiles) {
  test::TempDir dir;
  const auto folder = dir / "builtin";
  std::filesystem::create_directories(folder);
  {
    // The folder registered first: it must still go, after its files.
    SignalCleanupGuard folder_guard(folder);
    SignalCleanupGuard a_guard(folder / "a.csv");
    SignalCleanupGuard b_guard(folder / "b.csv");
    std::ofstream(folder / "a.csv") << "x";
    std::ofstream(folder / "b.csv") << "y";
    std::ofstream(dir / "kept.txt") << "not registered";
    remove_live_temp_files();  // what the SIGINT/SIGTERM handler calls
    EXPECT_FALSE(std::filesystem::exists(folder));
    EXPECT_TRUE(std::filesystem::exists(dir / "kept.txt"));
  }
  // Guards released: a new folder of the same name is left alone.
  std::filesystem::create_directories(folder);
  remove_live_temp_files();
  EXPECT_TRUE(std::filesystem::exists(folder));
}

}  // namespace
}  // namespace flashsim
