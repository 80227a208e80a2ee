#include "sim/validate/profile_fit.h"

#include <Eigen/Core>
#include <Eigen/QR>
#include <unsupported/Eigen/LevenbergMarquardt>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

#include "sim/scenario/hardware_loader.h"

namespace flashsim {
namespace {

constexpr const char* kFittedHeader = "# Fitted by `flashsim calibrate --fit ";

std::string number(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// The override text of a parameter value in its unit.
std::string value_text(const FitParameter& p, double v) {
  if (p.unit == "ns") return std::to_string(std::llround(v)) + "ns";
  if (p.unit == "B/s") return number(v / 1e9, 6) + "GB/s";
  return number(v, 6);
}

std::vector<FitParameter> initial_parameters(const ValidationSuite& suite, const std::vector<std::string>& wanted) {
  const HardwareProfile hw = load_hardware_profile(suite.profile.string(), suite.profile.parent_path());
  if (hw.tiers.size() < 2) throw InputError(suite.profile.string() + ": a fit needs a fast tier and a backing tier");
  // Zero-valued terms start small but positive (the fit works on logarithms).
  const std::map<std::string, FitParameter> all = {
      {"link_latency", {"link_latency", "hardware.tiers.1.link.latency", "ns", std::max<double>(100.0, static_cast<double>(hw.tiers[1].link_to_faster.latency_ns)), 0}},
      {"link_bandwidth", {"link_bandwidth", "hardware.tiers.1.link.bandwidth", "B/s", hw.tiers[1].link_to_faster.bandwidth, 0}},
      {"miss_penalty", {"miss_penalty", "hardware.miss_penalty", "ns", std::max<double>(100.0, static_cast<double>(hw.miss_penalty_ns)), 0}},
      {"hit_latency", {"hit_latency", "hardware.tiers.0.hit_latency", "ns", std::max<double>(10.0, static_cast<double>(hw.tiers[0].hit_latency_ns)), 0}},
      {"contention", {"contention", "hardware.contention.ns_per_mib", "ns/MiB", std::max(1e-4, hw.contention.ns_per_mib), 0}},
  };
  std::vector<FitParameter> out;
  const std::vector<std::string> defaults = {"link_latency", "link_bandwidth", "miss_penalty", "hit_latency"};
  for (const std::string& name : wanted.empty() ? defaults : wanted) {
    const auto it = all.find(name);
    if (it == all.end()) throw InputError("--fit-params '" + name + "': expected one of link_latency, link_bandwidth, miss_penalty, hit_latency, contention");
    if (it->second.initial <= 0.0) throw InputError(suite.profile.string() + ": " + name + " must be > 0 to start a fit");
    out.push_back(it->second);
  }
  return out;
}

struct Problem {
  const ValidationSuite* suite = nullptr;
  const FitOptions* options = nullptr;
  std::vector<FitParameter> params;
  std::vector<const SuiteEntry*> fit, holdout;
  const Baseline* baseline = nullptr;
  std::ostream* progress = nullptr;
  unsigned evaluations = 0;

  std::vector<Override> overrides(const Eigen::VectorXd& x) const {
    std::vector<Override> o;
    for (std::size_t i = 0; i < params.size(); ++i) {
      // Steps are kept within e^±8 of the start (a factor of ~3000 either way).
      const double v = params[i].initial * std::exp(std::clamp(x(static_cast<Eigen::Index>(i)), -8.0, 8.0));
      o.push_back(Override{params[i].key, ConfigNode::make_scalar(value_text(params[i], v))});
    }
    return o;
  }

  // Relative errors of `entries` (metric-major per entry) under parameters x.
  std::vector<double> residuals(const Eigen::VectorXd& x, const std::vector<const SuiteEntry*>& entries) {
    const auto sims = simulate_suite(*suite, entries, options->jobs, nullptr, overrides(x));
    std::vector<double> r;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const MetricValues m = metrics_of(sims[i].run, sims[i].tokens);
      const BaselineEntry* hw = baseline->find(entries[i]->name);
      for (const std::string& metric : options->metrics) {
        const MeasuredValue& h = hw->metrics.at(metric);
        double floor = 0.0;
        for (const MetricSpec& s : suite->metrics)
          if (s.name == metric) floor = s.floor;
        r.push_back((m.at(metric) - h.median) / std::max({std::fabs(h.median), floor, 1e-300}));
      }
    }
    return r;
  }
};

// Eigen's functor protocol (unsupported/Eigen/NonLinearOptimization).
struct Functor {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  using QRSolver = Eigen::ColPivHouseholderQR<JacobianType>;  // what LevenbergMarquardt solves with
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  Problem* problem = nullptr;
  int n_inputs = 0, n_values = 0;
  int inputs() const { return n_inputs; }
  int values() const { return n_values; }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
    const std::vector<double> r = problem->residuals(x, problem->fit);
    // Soft-L1 loss (as scipy.optimize.least_squares' loss='soft_l1'): the
    // squared residual 2(sqrt(1 + r^2) - 1) grows like r^2 for small errors and
    // like 2|r| for outliers, so one entry the model cannot fit (a stall the
    // hardware hides entirely) does not dominate the others.
    for (std::size_t i = 0; i < r.size(); ++i)
      f(static_cast<Eigen::Index>(i)) = std::copysign(std::sqrt(2.0 * (std::sqrt(1.0 + r[i] * r[i]) - 1.0)), r[i]);
    ++problem->evaluations;
    if (problem->progress && problem->evaluations % 10 == 0)
      *problem->progress << "[fit] " << problem->evaluations << " evaluations, rms " << number(f.norm() / std::sqrt(double(f.size())), 4) << "\n"
                         << std::flush;
    return 0;
  }
  // Forward differences with a fixed step of 2% of each parameter (0.02 in
  // log space): the simulator's times are integer ns, so a step relative to
  // x (NumericalDiff's, ~0 near the start) would round to no change at all.
  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& jac) const {
    constexpr double kStep = 0.02;
    Eigen::VectorXd f0(n_values), f1(n_values);
    (*this)(x, f0);
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      Eigen::VectorXd xj = x;
      xj(j) += kStep;
      (*this)(xj, f1);
      jac.col(j) = (f1 - f0) / kStep;
    }
    return 0;
  }
};

std::string status_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall: return "converged: relative reduction of the sum of squares below ftol";
    case RelativeErrorTooSmall: return "converged: relative change of the parameters below xtol";
    case RelativeErrorAndReductionTooSmall: return "converged: sum of squares and parameters both settled";
    case CosinusTooSmall: return "converged: residuals orthogonal to the Jacobian (gtol)";
    case TooManyFunctionEvaluation: return "stopped: evaluation budget used";
    case FtolTooSmall: case XtolTooSmall: case GtolTooSmall: return "stopped: tolerance too small for further progress";
    default: return "stopped (status " + std::to_string(static_cast<int>(s)) + ")";
  }
}

double mae_pct(const std::vector<double>& r, std::size_t metric, std::size_t metrics) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = metric; i < r.size(); i += metrics, ++n) sum += std::fabs(r[i]);
  return n ? 100.0 * sum / static_cast<double>(n) : 0.0;
}

}  // namespace

const std::vector<std::string>& fit_parameter_names() {
  static const std::vector<std::string> names = {"link_latency", "link_bandwidth", "miss_penalty", "hit_latency", "contention"};
  return names;
}

FitResult fit_profile(const ValidationSuite& suite, const FitOptions& options, std::ostream* progress) {
  if (suite.profile.empty()) throw InputError(suite.file.string() + ": --fit needs the suite's `profile:` (the profile to start from)");
  Problem p;
  p.suite = &suite;
  p.options = &options;
  p.progress = progress;
  p.params = initial_parameters(suite, options.parameters);
  for (const SuiteEntry& e : suite.entries) (e.fit ? p.fit : p.holdout).push_back(&e);
  if (p.fit.empty()) throw InputError(suite.file.string() + ": no entry has role: fit");
  FitResult result;
  result.baseline_file = (options.baseline.empty() ? suite.baseline : options.baseline).string();
  const Baseline baseline = read_baseline(result.baseline_file);
  p.baseline = &baseline;
  result.provenance = baseline.provenance;
  for (const SuiteEntry& e : suite.entries) {
    const BaselineEntry* hw = baseline.find(e.name);
    if (!hw) throw InputError(result.baseline_file + ": no figures for entry '" + e.name + "'");
    if (hw->scenario_fingerprint != suite_entry_fingerprint(suite, e))
      throw InputError(result.baseline_file + ": entry '" + e.name + "' changed since it was recorded: record it again");
    for (const std::string& m : options.metrics)
      if (!hw->metrics.count(m)) throw InputError(result.baseline_file + ": entry '" + e.name + "' has no " + m);
    (e.fit ? result.fit_entries : result.holdout_entries).push_back(e.name);
  }

  const Eigen::Index n = static_cast<Eigen::Index>(p.params.size());
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  const std::vector<double> fit_before = p.residuals(x, p.fit);
  const std::vector<double> hold_before = p.holdout.empty() ? std::vector<double>{} : p.residuals(x, p.holdout);

  Functor f;
  f.problem = &p;
  f.n_inputs = static_cast<int>(n);
  f.n_values = static_cast<int>(fit_before.size());
  if (f.n_values < f.n_inputs) throw InputError("--fit: " + std::to_string(f.n_values) + " residuals for " + std::to_string(n) + " parameters");
  Eigen::LevenbergMarquardt<Functor> lm(f);
  lm.setMaxfev(static_cast<Eigen::Index>(options.max_evaluations ? options.max_evaluations : 40 * (n + 1)));
  lm.setFactor(1.0);  // first step at most e^1 of each start (default 100 overflows exp)
  lm.setXtol(1e-4);
  lm.setFtol(1e-6);
  result.status = status_text(lm.minimize(x));
  result.evaluations = p.evaluations;

  const std::vector<double> fit_after = p.residuals(x, p.fit);
  const std::vector<double> hold_after = p.holdout.empty() ? std::vector<double>{} : p.residuals(x, p.holdout);
  auto rms = [](const std::vector<double>& r) {
    double s = 0;
    for (double v : r) s += v * v;
    return r.empty() ? 0.0 : std::sqrt(s / static_cast<double>(r.size()));
  };
  result.rms_before = rms(fit_before);
  result.rms_after = rms(fit_after);
  const std::size_t k = options.metrics.size();
  for (std::size_t m = 0; m < k; ++m) {
    result.errors.push_back({options.metrics[m], "fit", p.fit.size(), mae_pct(fit_before, m, k), mae_pct(fit_after, m, k)});
    if (!p.holdout.empty())
      result.errors.push_back({options.metrics[m], "holdout", p.holdout.size(), mae_pct(hold_before, m, k), mae_pct(hold_after, m, k)});
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    FitParameter& q = p.params[static_cast<std::size_t>(i)];
    q.fitted = q.initial * std::exp(std::clamp(x(i), -8.0, 8.0));
  }
  result.parameters = p.params;
  return result;
}

void check_profile_name(const std::string& name) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
  if (!ok) throw InputError("--name '" + name + "': use letters, digits, '.', '_' and '-'");
}

void check_fit_output(const ValidationSuite& suite, const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::absolute(out).lexically_normal();
  auto same = [&](const fs::path& p) { return fs::equivalent(target, p, ec) || target == fs::absolute(p).lexically_normal(); };
  if (same(suite.file)) throw InputError("--out " + out.string() + ": would overwrite the suite");
  // The start profile and every file it inherits from (links resolved): writing
  // over one of them would lose it or make the chain a cycle.
  fs::path profile = suite.profile;
  for (int depth = 0; depth < 16 && !profile.empty(); ++depth) {
    if (same(profile)) throw InputError("--out " + out.string() + ": would overwrite " + profile.string() + ", which the fit's start profile is or inherits from");
    const ConfigNode tree = parse_yaml_file(profile);
    const ConfigNode* parent = tree.find("profile");
    fs::path next;
    if (parent && parent->is_scalar()) {
      for (const fs::path& c : {profile.parent_path() / parent->scalar, profile.parent_path() / (parent->scalar + ".yaml")})
        if (fs::is_regular_file(c, ec)) {
          next = c;
          break;
        }
    }
    profile = next;
  }
  if (fs::exists(target, ec)) {
    if (!fs::is_regular_file(target, ec)) throw InputError("--out " + out.string() + ": exists and is not a file");
    const std::string text = read_text_file(target, out.string());
    if (!text.starts_with(kFittedHeader))
      throw InputError("--out " + out.string() + ": exists and was not written by `calibrate --fit`; not overwriting it");
  }
}

std::string fitted_profile_yaml(const ValidationSuite& suite, const FitResult& r, const std::string& name,
                                const std::filesystem::path& out) {
  std::map<std::string, std::string> v;
  for (const FitParameter& p : r.parameters) v[p.name] = value_text(p, p.fitted);
  std::ostringstream y;
  const HostInfo host = HostInfo::current();
  y << kFittedHeader << suite.file.string() << "` on " << host.date_utc << ":\n"
    << "# least squares (Eigen Levenberg-Marquardt over log parameters) of the relative error of\n"
    << "# time per token and stall time on the suite's " << r.fit_entries.size() << " fit entries, against\n"
    << "# " << std::filesystem::path(r.baseline_file).lexically_relative(std::filesystem::current_path()).string() << " (commit " << r.provenance.commit << ", " << r.provenance.device.name << " "
    << r.provenance.device.uuid << ", driver " << r.provenance.device.driver_version << ", " << r.provenance.repeats
    << " repeats, " << r.provenance.date_utc << ").\n"
    << "# " << r.status << " after " << r.evaluations << " simulator passes; rms relative residual "
    << number(r.rms_before, 4) << " -> " << number(r.rms_after, 4) << ".\n"
    << "# Mean absolute error, before -> after (held-out entries were not fitted):\n";
  for (const FitError& e : r.errors)
    y << "#   " << e.metric << " " << e.role << " (" << e.n << "): " << number(e.mae_pct_before, 3) << "% -> "
      << number(e.mae_pct_after, 3) << "%\n";
  y << "# Parameters (initial -> fitted):\n";
  for (const FitParameter& p : r.parameters)
    y << "#   " << p.name << " (" << p.key << "): " << value_text(p, p.initial) << " -> " << value_text(p, p.fitted) << "\n";
  y << "# Everything else is inherited from the calibrated profile.\n"
    << "name: " << name << "\n"
    << "source: \"flashsim calibrate --fit on " << suite.name << " (" << r.fit_entries.size() << " entries), baseline commit "
    << r.provenance.commit.substr(0, 12) << "\"\n"
    << "profile: "
    << std::filesystem::absolute(suite.profile).lexically_normal().lexically_relative(
           std::filesystem::absolute(out).lexically_normal().parent_path()).string()
    << "\n";
  if (v.count("miss_penalty")) y << "miss_penalty: " << v["miss_penalty"] << "\n";
  const bool t0 = v.count("hit_latency"), t1 = v.count("link_latency") || v.count("link_bandwidth");
  if (t0 || t1) {
    y << "tiers:\n";
    y << "  - " << (t0 ? "hit_latency: " + v["hit_latency"] : "{}") << "\n";
    if (t1) {
      y << "  - link:\n";
      if (v.count("link_latency")) y << "      latency: " << v["link_latency"] << "\n";
      if (v.count("link_bandwidth")) y << "      bandwidth: " << v["link_bandwidth"] << "\n";
    }
  }
  if (v.count("contention")) y << "contention:\n  ns_per_mib: " << v["contention"] << "\n";
  return y.str();
}

void print_fit(std::ostream& out, const FitResult& r) {
  out << "fit against " << r.baseline_file << " (commit " << r.provenance.commit.substr(0, 12) << ", " << r.provenance.device.name
      << "): " << r.fit_entries.size() << " fit entries, " << r.holdout_entries.size() << " held out\n"
      << r.status << " after " << r.evaluations << " simulator passes; rms relative residual " << number(r.rms_before, 4)
      << " -> " << number(r.rms_after, 4) << "\n\n";
  out << "  " << std::left << std::setw(16) << "parameter" << std::setw(36) << "key" << std::setw(16) << "initial" << "fitted\n";
  for (const FitParameter& p : r.parameters)
    out << "  " << std::left << std::setw(16) << p.name << std::setw(36) << p.key << std::setw(16) << value_text(p, p.initial)
        << value_text(p, p.fitted) << "\n";
  out << "\n  " << std::left << std::setw(20) << "metric" << std::setw(9) << "role" << std::right << std::setw(4) << "n" << std::setw(12)
      << "MAE before" << std::setw(12) << "MAE after" << "\n";
  for (const FitError& e : r.errors)
    out << "  " << std::left << std::setw(20) << e.metric << std::setw(9) << e.role << std::right << std::setw(4) << e.n
        << std::setw(11) << number(e.mae_pct_before, 3) << "%" << std::setw(11) << number(e.mae_pct_after, 3) << "%\n";
  out << "(the fitted profile's error is the held-out one)\n";
}

}  // namespace flashsim
