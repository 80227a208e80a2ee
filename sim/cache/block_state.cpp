#include "sim/cache/block_state.h"

namespace flashsim {

std::string_view to_string(BlockState state) {
  switch (state) {
    case BlockState::absent: return "absent";
    case BlockState::in_flight: return "in_flight";
    case BlockState::resident: return "resident";
    case BlockState::in_use: return "in_use";
  }
  return "?";
}

}  // namespace flashsim
