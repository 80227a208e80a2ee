#include "sim/report/plot_runner.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "sim/core/child_process.h"
#include "sim/core/errors.h"
#include "sim/core/temp_folder.h"
#include "sim/scenario/embedded_files.h"

namespace flashsim::report {

namespace {

constexpr const char* kScriptPath = "tools/plot_validation.py";
constexpr int kExitBadInput = 2;
constexpr int kExitNoMatplotlib = 3;


std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("cannot write '" + path.string() + "'");
}

// The <svg> element of a matplotlib SVG file: HTML5 takes no XML prolog or DOCTYPE.
std::string svg_element(const std::string& text, const std::filesystem::path& file) {
  const std::size_t start = text.find("<svg");
  if (start == std::string::npos) throw Error("'" + file.string() + "' holds no <svg> element");
  return text.substr(start);
}

}  // namespace

std::string resolve_python(const std::string& python) {
  if (!python.empty()) return python;
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

PlotOutcome plot_validation(const std::filesystem::path& validation_json, const PlotOptions& options) {
  const EmbeddedFile* script = find_embedded_file(kScriptPath);
  if (script == nullptr) throw Error(std::string("this flashsim binary was built without ") + kScriptPath);
  const TempFolder temp("flashsim-report-");
  const std::filesystem::path script_file = temp.path() / "plot_validation.py";
  const std::filesystem::path plots = temp.path() / "plots";
  write_text(script_file, script->data);

  const std::string python = resolve_python(options.python);
  const std::filesystem::path absolute = std::filesystem::absolute(validation_json);
  std::vector<std::string> args{python, "-s", script_file.string(), absolute.string(), "--out", plots.string(),
                                "--id-salt", options.id_salt};
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  const ChildOutcome p = run_child(args, temp.path() / "stdout.txt", temp.path() / "stderr.txt");
  PlotOutcome outcome;
  if (!p.started || p.exit_code == 127) {  // 127: the shell-style "not found" of a wrapper
    outcome.skipped_reason = "cannot run '" + python + "'" +
                             (p.started ? "" : std::string(": ") + std::strerror(p.start_errno));
    return outcome;
  }
  const std::string err = read_text(temp.path() / "stderr.txt");
  if (p.exit_code == kExitNoMatplotlib) {
    outcome.skipped_reason = "'" + python + "' " + output_tail(err, 400);
    const std::string prefix = "plot_validation.py: ";
    if (const std::size_t at = outcome.skipped_reason.find(prefix); at != std::string::npos) {
      outcome.skipped_reason.erase(at, prefix.size());
    }
    return outcome;
  }
  if (p.exit_code == kExitBadInput) {
    throw InputError("'" + validation_json.string() + "': the plot script refused it: " + output_tail(err));
  }
  if (p.exit_code != 0) {
    throw Error("the plot script (" + std::string(kScriptPath) + ", run by '" + python + "') failed on '" +
                validation_json.string() + "' (" +
                (p.exit_code < 0 ? std::string("killed by a signal") : "exit status " + std::to_string(p.exit_code)) +
                "): " + output_tail(err));
  }
  const std::filesystem::path manifest = plots / "plots.json";
  nlohmann::json figures;
  try {
    figures = nlohmann::json::parse(read_text(manifest)).at("figures");
  } catch (const nlohmann::json::exception& e) {
    throw Error("'" + manifest.string() + "' (written by the plot script): " + e.what());
  }
  outcome.ran = true;
  for (const auto& f : figures) {
    PlotFigure figure;
    figure.name = f.value("name", "");
    figure.title = f.value("title", figure.name);
    figure.caption = f.value("caption", "");
    const std::filesystem::path svg = plots / (figure.name + ".svg");
    figure.svg = svg_element(read_text(svg), svg);
    outcome.figures.push_back(std::move(figure));
  }
  return outcome;
}

}  // namespace flashsim::report
