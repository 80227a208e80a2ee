// Progress of `flashsim trace stats | import` on stderr (sim/run/read_progress.h):
// with stderr a file, the first line at once, pass lines with the fraction
// read, the last line; stdout the same as with --quiet, which says nothing.
// And ReadProgress itself: the plain-line rule, the heartbeat, the terminal.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <zstd.h>

#include "sim/results/results_table.h"
#include "sim/run/read_progress.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/trace_test_util.h"

namespace flashsim {
namespace {

using test::TempDir;

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// stdout and stderr to files: stderr is not a terminal, as in a log or a pipe.
Outcome flashsim(const TempDir& dir, const std::string& args) {
  const std::string command = std::string(FLASHSIM_BINARY) + " " + args + " > '" + (dir / "out.txt").string() +
                              "' 2> '" + (dir / "err.txt").string() + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out.txt"), slurp(dir / "err.txt")};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// 300,000 accesses over 5,003 blocks: 65,536-record chunks make 5 reads a pass.
void write_csv(const std::filesystem::path& path) {
  std::string text = "time_ns,block_id,bytes\n";
  for (int i = 0; i < 300'000; ++i) {
    const long long block = (i * 7919LL) % 5003;
    text += std::to_string(i) + "," + std::to_string(block) + "," + std::to_string(64 + block % 7) + "\n";
  }
  test::write_text_file(path, text);
}

TEST(TraceProgress, StatsOnAFileShowsPassesAndKeepsStdout) {
  TempDir dir;
  write_csv(dir / "t.csv");
  const std::string trace = (dir / "t.csv").string();
  const Outcome quiet = flashsim(dir, "trace stats '" + trace + "' --quiet");
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const Outcome shown = flashsim(dir, "trace stats '" + trace + "' --progress-interval 0");
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out, quiet.out);
  EXPECT_NE(shown.out.find("records          300000"), std::string::npos) << shown.out;
  const auto lines = lines_of(shown.err);
  ASSERT_GE(lines.size(), 3u) << shown.err;
  const std::string prefix = "flashsim trace stats: " + trace + " ";
  std::uintmax_t size = std::filesystem::file_size(trace);
  EXPECT_EQ(size, 4'322'354u);
  EXPECT_EQ(lines.front(), prefix + "reading 4.32 MB") << shown.err;
  // Two passes (footprint, then stack distances), each shown from its
  // first chunk with the share of the file read, up to 100%.
  int pass_lines[3] = {0, 0, 0};
  double last_percent = -1;
  for (const auto& line : lines) {
    for (int pass = 1; pass <= 2; ++pass) {
      const std::string head = prefix + "pass " + std::to_string(pass) + ": ";
      if (line.rfind(head, 0) != 0) continue;
      ++pass_lines[pass];
      ASSERT_NE(line.find(" of 4.32 MB ("), std::string::npos) << line;
      const double percent = std::stod(line.substr(line.find(" of 4.32 MB (") + 13));
      EXPECT_GT(percent, 0);
      EXPECT_LE(percent, 100);
      if (pass == 2 && pass_lines[2] == 1) last_percent = -1;
      EXPECT_GE(percent, last_percent) << line;
      last_percent = percent;
    }
  }
  EXPECT_EQ(pass_lines[1], 5) << shown.err;
  EXPECT_EQ(pass_lines[2], 5) << shown.err;
  EXPECT_EQ(last_percent, 100.0);
  EXPECT_NE(shown.err.find(" left in this pass\n"), std::string::npos) << shown.err;
  EXPECT_EQ(lines.back().rfind(prefix + "read 300000 records (2 passes) (", 0), 0u) << lines.back();
}

TEST(TraceProgress, ImportAndStatsOfTheH5CountRecordsAgainstTheKnownTotal) {
  TempDir dir;
  write_csv(dir / "t.csv");
  const std::string h5 = (dir / "t.h5").string();
  const Outcome quiet = flashsim(dir, "trace import csv '" + (dir / "t.csv").string() + "' '" + h5 + "' -q");
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const Outcome shown =
      flashsim(dir, "trace import csv '" + (dir / "t.csv").string() + "' '" + h5 + "' --progress-interval 0");
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out, quiet.out);
  EXPECT_EQ(shown.out, "wrote 300000 records to " + h5 + "\n");
  EXPECT_NE(shown.err.find("flashsim trace import: " + (dir / "t.csv").string() + " read 300000 records (1 pass) ("),
            std::string::npos)
      << shown.err;
  // The h5 knows its 300,000 records: chunk k of 65,536 is k·65,536 / 300,000 of them.
  const Outcome stats = flashsim(dir, "trace stats '" + h5 + "' --progress-interval 0");
  ASSERT_EQ(stats.code, 0) << stats.err;
  for (const char* part : {"pass 1: 65.5 k records of 300 k (21.8%)", "pass 1: 131 k records of 300 k (43.7%)",
                           "pass 1: 197 k records of 300 k (65.5%)", "pass 1: 262 k records of 300 k (87.4%)",
                           "pass 1: 300 k records of 300 k (100.0%)", "pass 2: 65.5 k records of 300 k (21.8%)"}) {
    EXPECT_NE(stats.err.find(part), std::string::npos) << part << "\n" << stats.err;
  }
}

TEST(TraceProgress, ZstdInputShowsTheCompressedShareAndTheSameStats) {
  TempDir dir;
  write_csv(dir / "t.csv");
  const std::string text = slurp(dir / "t.csv");
  std::string packed(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 3);
  ASSERT_FALSE(ZSTD_isError(n));
  packed.resize(n);
  test::write_text_file(dir / "t.csv.zst", packed);
  const Outcome plain = flashsim(dir, "trace stats '" + (dir / "t.csv").string() + "' -q --json");
  const Outcome zst = flashsim(dir, "trace stats '" + (dir / "t.csv.zst").string() + "' --progress-interval 0 --json");
  ASSERT_EQ(zst.code, 0) << zst.err;
  EXPECT_EQ(zst.out, plain.out);
  // The share read is of the compressed file, whose size is known.
  EXPECT_NE(zst.err.find("B of " + format_bytes_si(n) + " ("), std::string::npos) << zst.err;
  EXPECT_NE(zst.err.find("(100.0%)"), std::string::npos) << zst.err;
}

TEST(TraceProgress, ReporterFollowsTheSweepRule) {
  std::ostringstream out;
  {
    ReadProgress p(&out, false, "w", "reading", std::chrono::hours(1));
    const auto t = std::chrono::steady_clock::now();
    p.update(1, t, 10, 100, std::nullopt);  // a new pass: at once
    p.update(1, t, 20, 100, std::nullopt);  // within the interval: not shown
    p.update(2, t, 5, 100, ReadPosition{25, 200});
    p.finish("read 105 records");
  }
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  EXPECT_EQ(lines[0], "w reading");
  EXPECT_EQ(lines[1].rfind("w pass 1: 10 records of 100 (10.0%), ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("w pass 2: 5 records, 25 B of 200 B (12.5%), ", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("w read 105 records (", 0), 0u) << lines[3];
  // Nothing read for a while (a parse, the work after the last pass): a heartbeat.
  std::ostringstream beat;
  {
    ReadProgress p(&beat, false, "w", "reading", std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  EXPECT_NE(beat.str().find("w opening, running for 0s\n"), std::string::npos) << beat.str();
  // A terminal: one line rewritten, no heartbeat, ended by a newline.
  std::ostringstream tty;
  {
    ReadProgress p(&tty, true, "w", "reading", std::chrono::milliseconds(20));
    p.update(1, std::chrono::steady_clock::now(), 10, 0, std::nullopt);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(tty.str().find("running for"), std::string::npos) << tty.str();
  EXPECT_NE(tty.str().find("\r\x1b[Kw pass 1: 10 records, "), std::string::npos) << tty.str();
  EXPECT_EQ(tty.str().back(), '\n');
  // Silent without a stream.
  ReadProgress silent(nullptr, false, "w", "reading");
  silent.update(1, std::chrono::steady_clock::now(), 1, 1, std::nullopt);
  silent.finish("done");
}

}  // namespace
}  // namespace flashsim
