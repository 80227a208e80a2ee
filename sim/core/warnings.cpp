#include "sim/core/warnings.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace flashsim {
namespace {

struct WarningState {
  std::mutex mutex;
  WarningSink sink;
  std::set<std::string> said;
};

WarningState& state() {
  static WarningState s;
  return s;
}

}  // namespace

void warn(const std::string& message) {
  WarningState& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.said.insert(message).second) return;
  if (s.sink) {
    s.sink(message);
  } else {
    std::cerr << "flashsim: warning: " << message << "\n";
  }
}

WarningSink set_warning_sink(WarningSink sink) {
  WarningState& s = state();
  std::lock_guard lock(s.mutex);
  s.said.clear();
  return std::exchange(s.sink, std::move(sink));
}

}  // namespace flashsim
