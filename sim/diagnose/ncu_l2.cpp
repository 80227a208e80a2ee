#include "sim/diagnose/ncu_l2.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "sim/core/errors.h"
#include "traces/text_fields.h"

namespace flashsim::diagnose {
namespace {

using namespace flashsim::trace_text;

double number(std::string text, const std::string& where, std::uint64_t line) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !(v >= 0)) {
    throw InputError(where + ":" + std::to_string(line) + ": metric value '" + excerpt(text) +
                     "' is not a number >= 0");
  }
  return v;
}

}  // namespace

NcuL2 read_ncu_l2(std::istream& in, const std::string& where, const std::regex& weight_kernels) {
  std::string record;
  std::uint64_t line = 0;
  std::vector<std::string> cells;
  int id_col = -1, kernel_col = -1, metric_col = -1, value_col = -1;
  while (read_csv_record(in, ',', record, line, where)) {
    if (record.rfind("==", 0) == 0) continue;  // ncu's own messages
    const int n = split_csv_line(record, ',', cells);
    if (n < 0) continue;
    for (int i = 0; i < n; ++i) {
      if (cells[i] == "ID") id_col = i;
      if (cells[i] == "Kernel Name") kernel_col = i;
      if (cells[i] == "Metric Name") metric_col = i;
      if (cells[i] == "Metric Value") value_col = i;
    }
    if (id_col >= 0 && kernel_col >= 0 && metric_col >= 0 && value_col >= 0) break;
    id_col = kernel_col = metric_col = value_col = -1;
  }
  if (value_col < 0) {
    throw InputError(where + ": no ncu CSV header (columns ID, Kernel Name, Metric Name, Metric Value): run ncu with --csv");
  }
  const int need = std::max({id_col, kernel_col, metric_col, value_col});
  NcuL2 out;
  std::map<std::string, std::size_t> by_id;
  while (read_csv_record(in, ',', record, line, where)) {
    if (record.rfind("==", 0) == 0) continue;
    if (record.empty()) continue;
    const int n = split_csv_line(record, ',', cells);
    if (n <= need) {
      throw InputError(where + ":" + std::to_string(line) + ": " + std::to_string(std::max(n, 0)) +
                       " column(s), the header names column " + std::to_string(need + 1));
    }
    const std::string& metric = cells[metric_col];
    const bool hit = metric == "lts__t_sectors_srcunit_tex_lookup_hit.sum";
    const bool miss = metric == "lts__t_sectors_srcunit_tex_lookup_miss.sum";
    const bool pct = metric == "lts__t_sector_hit_rate.pct";
    if (!hit && !miss && !pct) continue;
    if (cells[value_col] == "n/a") continue;  // ncu could not collect it
    auto [it, fresh] = by_id.emplace(cells[id_col], out.kernels.size());
    if (fresh) out.kernels.push_back({cells[kernel_col], 0, 0, -1});
    KernelL2& k = out.kernels[it->second];
    const double v = number(cells[value_col], where, line);
    (hit ? k.hits : miss ? k.misses : k.ncu_pct) = v;
  }
  for (const KernelL2& k : out.kernels) {
    out.max_ncu_pct = std::max(out.max_ncu_pct, k.ncu_pct);
    if (!std::regex_search(k.kernel, weight_kernels)) continue;
    ++out.matched;
    out.hits += k.hits;
    out.misses += k.misses;
  }
  return out;
}

}  // namespace flashsim::diagnose
