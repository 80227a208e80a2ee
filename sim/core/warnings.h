// Warnings: input that has a plain reading but is likely a mistake (a bare
// number for a key with a unit). Said once per distinct message (a sweep
// resolves the same key at every point), to the sink main() or a test set;
// the default sink is stderr ("flashsim: warning: ...").
#pragma once
#include <functional>
#include <string>

namespace flashsim {

/// Says `message` once per process (later identical messages are dropped).
/// Thread-safe.
void warn(const std::string& message);

/// Replaces the sink (nullptr restores stderr) and forgets what was said;
/// returns the previous sink. For tests and embedding programs.
using WarningSink = std::function<void(const std::string&)>;
WarningSink set_warning_sink(WarningSink sink);

}  // namespace flashsim
