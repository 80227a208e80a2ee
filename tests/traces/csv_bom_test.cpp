#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"
#include "traces/trace_formats.h"

namespace flashsim {
namespace {

TEST(CsvImporter, ByteOrderMarkIsNotPartOfTheFirstColumnName) {
  test::TempDir dir;
  {
    std::ofstream out(dir / "bom.csv", std::ios::binary);
    out << "\xEF\xBB\xBFtime_ns,block_id,bytes\n100,1,8\n200,2,8\n";
  }
  auto source = open_trace(dir / "bom.csv", "csv");
  std::vector<AccessRecord> records(4);
  ASSERT_EQ(source->read(records), 2u);
  EXPECT_EQ(records[0].time_ns, 100);  // not the record index: the time column was found
  EXPECT_EQ(records[1].time_ns, 200);
  EXPECT_EQ(records[1].block_id, 2u);
}

}  // namespace
}  // namespace flashsim
