// wheelsmoke import: install the wheels together (or take an environment they are installed in),
// import each of their import names in a fresh interpreter, open every native library no import
// loaded, and watch what the process really loads (src/smoke/import/import_truth.h judges it).
#include "smoke/commands.h"

#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "facts/analyze.h"
#include "pipeline/check.h"
#include "rules/loader/resolution.h"
#include "smoke/artifact/session.h"
#include "smoke/artifact/venv.h"
#include "smoke/import/import_job.h"
#include "smoke/import/import_truth.h"
#include "smoke/smoke_rules.h"
#include "util/parse.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"
#include "wheel/requirement.h"

namespace wc::smoke {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kFloodBytes = 1u << 20;

// The probe's script, written once for the run (create() throws when it cannot be).
class ProbeScript {
 public:
  ProbeScript() = default;
  ProbeScript(const ProbeScript&) = delete;
  ProbeScript& operator=(const ProbeScript&) = delete;
  void create() {
    char tmpl[] = "/tmp/wheelsmoke-import-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a folder for the import probe in /tmp");
    dir_ = tmpl;
    std::ofstream out(path());
    out << import_probe_source();
    if (!out.flush()) throw std::runtime_error("cannot write the import probe to " + path());
  }
  ~ProbeScript() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string path() const { return dir_ + "/import_probe.py"; }

 private:
  std::string dir_;
};

bool tests_like(std::string_view name) {
  for (const char* t : {"test", "tests", "testing", "_test", "_tests", "benchmarks", "bench", "examples", "docs"})
    if (name == t) return true;
  return false;
}

// A top-level module that is a build or test script swept into the wheel, not something to import
// (importing setup.py runs setup()).
bool script_like(std::string_view name) {
  for (const char* t : {"setup", "conftest", "noxfile", "fabfile", "dodo"})
    if (name == t) return true;
  return false;
}

// What `import` may name for the wheel: METADATA's Import-Name fields (PEP 794) when it declares
// any, else its top-level packages and modules (shallowest packages under namespace folders when
// it has none at the top), without tests-like ones.
std::vector<std::string> import_names(const WheelFacts& f) {
  std::vector<std::string> out;
  if (f.metadata && f.metadata->count("Import-Name")) {
    for (const auto& v : f.metadata->get_all("Import-Name")) {
      std::string name(trim(std::string_view(v).substr(0, v.find(';'))));
      bool ok = !name.empty();
      for (auto part : split(name, '.')) ok = ok && is_import_name(part);
      if (ok && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    return out;
  }
  std::set<std::string> top, nested;
  for (const auto& e : f.entries) {
    auto t = install_target(e.name);
    if (!t || !t->library() || t->path.find(".dist-info/") != std::string::npos) continue;
    auto parts = split(t->path, '/');
    std::string name;
    if (parts.size() == 1) {
      std::string_view file = parts[0];
      if (file.ends_with(".py"))
        name = std::string(file.substr(0, file.size() - 3));
      else if (auto x = extension_suffix(file); x && x->python_extension)
        name = std::string(file.substr(0, file.find('.')));
    } else if (parts.back() == "__init__.py") {
      std::vector<std::string> pkg(parts.begin(), parts.end() - 1);
      bool ok = pkg.size() <= 3;
      for (const auto& p : pkg) ok = ok && is_import_name(p) && !tests_like(p);
      if (ok) (pkg.size() == 1 ? top : nested).insert(join(pkg, "."));
      continue;
    }
    if (!name.empty() && is_import_name(name) && !tests_like(name) && !script_like(name)) top.insert(name);
  }
  if (top.empty()) {  // namespace folders only (nvidia/cudnn/__init__.py): the shallowest packages
    size_t depth = SIZE_MAX;
    for (const auto& n : nested) depth = std::min<size_t>(depth, std::count(n.begin(), n.end(), '.'));
    for (const auto& n : nested)
      if (size_t(std::count(n.begin(), n.end(), '.')) == depth) top.insert(n);
  }
  return {top.begin(), top.end()};
}

std::string real_path(const std::string& p) {
  std::error_code ec;
  auto r = fs::weakly_canonical(p, ec);
  return ec ? p : r.string();
}

// The absolute path a loader message starts with ("/x/y.so: undefined symbol: z"), or "".
std::string leading_path(const std::string& message) {
  if (message.empty() || message[0] != '/') return "";
  auto colon = message.find(": ");
  return colon == std::string::npos ? "" : message.substr(0, colon);
}

// The NVIDIA driver library (cuda.driver_libraries) a loader message says is missing
// ("libcuda.so.1: cannot open shared object file ..."), or "": a machine without the driver (a CPU
// runner) cannot open what needs it, whatever the artifact.
// The soname a dlopen error says it could not find ("libcudart.so.11.0: cannot open shared
// object file"), or "".
std::string missing_soname(const std::string& message) {
  auto at = message.find(": cannot open shared object file");
  if (at == std::string::npos) return "";
  std::string soname = message.substr(0, at);
  if (auto slash = soname.rfind(' '); slash != std::string::npos) soname = soname.substr(slash + 1);
  return soname;
}

std::string missing_driver(const std::string& message, const Policy& policy) {
  std::string soname = missing_soname(message);
  return !soname.empty() && glob_any(policy.cuda.driver_libraries, soname) ? soname : "";
}

std::vector<std::pair<std::string, std::string>> loaded_pairs(const nlohmann::json& answer) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!answer.contains("loaded") || !answer["loaded"].is_array()) return out;
  for (const auto& row : answer["loaded"])
    if (row.is_array() && row.size() == 2 && row[0].is_string() && row[1].is_string())
      out.emplace_back(row[0].get<std::string>(), row[1].get<std::string>());
  return out;
}

std::set<std::string> strings_of(const nlohmann::json& answer, const char* key) {
  std::set<std::string> out;
  if (answer.contains(key) && answer[key].is_array())
    for (const auto& x : answer[key])
      if (x.is_string()) out.insert(x.get<std::string>());
  return out;
}

std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// A true boolean field (anything else, a string "true" included, is false).
bool flag(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

// The import the library pass starts from: the one named as the project (torch for torch), else
// the first.
std::string first_import(const std::vector<std::string>& names, const WheelFacts& f) {
  if (names.empty()) return "";
  for (const auto& n : names)
    if (f.filename.valid && canonicalize_name(n) == f.filename.canonical_name) return n;
  return names.front();
}

// Everything of one run: the probe, the environment, the gate and the judge.
struct Session {
  const ImportArgs& args;
  const Policy& policy;
  std::string python;
  const std::vector<std::string>* env = nullptr;  // the children's environment (null: ours)
  ProbeScript script;                             // created in run_import's setup
  JobLimits limits;
  std::map<std::string, std::string> verdict;  // real path -> what became of it (the wheel being run)

  JobOutcome ask(const nlohmann::json& request) const {
    nlohmann::json r = request;
    r["dump_after"] = std::max(0.5, limits.seconds * 0.8);
    return run_import_job(python, script.path(), r, limits, env);
  }
};

// How a process that did not answer ended, in words.
std::string how_it_ended(const JobOutcome& o, double seconds) {
  std::string stuck = o.stuck_at();
  std::string words = stuck.empty() ? o.last_words() : "at " + stuck;
  std::string how;
  if (o.timed_out)
    how = "did not finish within " + std::to_string(int(seconds)) + " s (killed with its process group)";
  else if (o.signal)
    how = "crashed: killed by " + signal_name(o.signal);
  else if (!o.protocol_error.empty())
    how = o.protocol_error;
  else
    how = "exited with status " + std::to_string(o.exit_code) + " before answering";
  return how + (words.empty() ? "" : " (" + words + ")");
}

// WS306: an import that worked, but misbehaved around it; WS301 when the interpreter then crashed
// on its way out (the import worked, `python -c "import pkg"` still fails).
void misbehaviour(const JobOutcome& o, double exit_grace, const std::string& what, FindingSink& s) {
  if (o.done && !o.exit_hung && (o.signal || o.exit_code > 0)) {
    std::string words = o.stuck_at().empty() ? o.last_words() : "at " + o.stuck_at();
    s.add("WS301", what + " finished, but the interpreter then " +
                       (o.signal ? "crashed at exit: killed by " + signal_name(o.signal)
                                 : "exited with status " + std::to_string(o.exit_code)) +
                       (words.empty() ? "" : " (" + words + ")"));
  }
  if (o.output_bytes > kFloodBytes)
    s.add("WS306", what + " printed " + human_bytes(o.output_bytes) +
                       " (wheelsmoke kept only the last 64 KiB; a CI log would hold all of it)");
  if (o.children_left)
    s.add("WS306", what + " left a child process running after the interpreter exited (killed with its process group)");
  if (o.exit_hung) {
    auto threads = strings_of(o.final_line(), "threads");
    s.add("WS306", what + " finished, but the interpreter did not exit within " + std::to_string(int(exit_grace)) +
                       " s" +
                       (threads.empty() ? ""
                                        : ": non-daemon threads " + join({threads.begin(), threads.end()}, ", ") +
                                              " keep it alive (a plain `python -c \"import ...\"` hangs)") +
                       " (killed)");
  }
}

struct WheelRun {
  const WheelFacts* facts = nullptr;
  ItemResult item;
  nlohmann::json imports = nlohmann::json::array(), libraries = nlohmann::json::array();
};

// Imports one name; returns the real paths it loaded (for the library pass).
std::set<std::string> import_one(Session& ss, const std::string& module, Judge& judge, FindingSink& s,
                                 nlohmann::json& record, std::set<std::string>& failed) {
  std::string what = "import " + module;
  JobOutcome o = ss.ask({{"op", "import"}, {"module", module}});
  const nlohmann::json& answer = o.final_line();
  Observation ob;
  ob.what = what;
  ob.loaded = loaded_pairs(answer);
  ob.before = strings_of(answer, "before");
  nlohmann::json row = {{"module", module}, {"seconds", o.seconds}};
  if (!o.done) {
    ob.failed = true;
    ob.error = how_it_ended(o, ss.limits.seconds);
    s.add("WS301", what + " " + ob.error);
  } else if (!flag(answer, "ok")) {
    ob.failed = true;
    ob.error = str(answer, "error_type") + ": " + str(answer, "message");
    // The native library the error names, unless it loaded (ImportError.path is also set for
    // "cannot import name x from pkg (path)": the module loaded, a name in it is missing).
    std::set<std::string> in_process;
    for (const auto& [name, real] : ob.loaded) in_process.insert(real);
    for (const auto& p : {str(answer, "error_path"), leading_path(str(answer, "message"))}) {
      if (p.empty() || !is_native_library_name(p)) continue;
      std::string real = real_path(p);
      if (!in_process.count(real)) ob.culprits.push_back(real);
    }
    if (std::string driver = missing_driver(str(answer, "message"), ss.policy); !driver.empty()) {
      s.add("WS301",
            what + " failed: " + clip_for_display(ob.error, 1500) + " (the NVIDIA driver's " + driver +
                " is not on this machine: the package cannot be imported without a GPU driver)",
            "", std::nullopt, Severity::warning);
      ob.culprits.clear();  // the machine's lack, not the gate's miss
    } else {
      s.add("WS301", what + " failed: " + clip_for_display(ob.error, 1500));
    }
  }
  misbehaviour(o, ss.limits.exit_grace, what, s);
  judge.observe(ob, s);
  failed.insert(ob.culprits.begin(), ob.culprits.end());
  for (const auto& c : ob.culprits) ss.verdict.emplace(c, "failed: " + what + ": " + clip_for_display(ob.error, 300));
  row["result"] = ob.failed ? ob.error : "ok";
  size_t fresh = 0;
  std::set<std::string> loaded;
  for (const auto& [name, real] : ob.loaded) {
    loaded.insert(real);
    ss.verdict.emplace(real, "loaded by " + what);
    if (!ob.before.count(real)) ++fresh;
  }
  row["loaded"] = fresh;
  record.push_back(row);
  return loaded;
}

// The wheel's native libraries no import loaded, each opened RTLD_NOW after the top-level import;
// a crash names the library it happened in and the rest go on in a fresh process.
void open_libraries(Session& ss, const WheelFacts& f, const Environment& env, const Gate& gate,
                    const std::string& first, const std::set<std::string>& loaded, Judge& judge, FindingSink& s,
                    nlohmann::json& record, std::vector<std::string>& notes) {
  std::vector<std::string> paths;
  std::map<std::string, const BinaryFacts*> binary_of;
  std::string project = f.filename.valid ? f.filename.canonical_name : "";
  for (const auto& b : f.binaries) {
    if (b.format != "elf" || b.elf_type != "dyn") continue;  // extension modules too: CDLL runs no init
    auto it = env.real_of.find({project, install_path(b.path)});
    if (it == env.real_of.end() || loaded.count(it->second)) continue;
    paths.push_back(it->second);
    binary_of[it->second] = &b;
  }
  // Declared dependencies whose import loads their libraries (cuda.import_loaded: torch, pyarrow),
  // imported first: the wheel's libraries find theirs in the process, as a real import would.
  nlohmann::json preload = nlohmann::json::array();
  if (f.metadata)
    for (const auto& line : f.metadata->get_all("Requires-Dist"))
      if (auto r = parse_requirement(line)) {
        const auto& loaded_by_import = gate.policy().cuda.import_loaded;
        if (std::find(loaded_by_import.begin(), loaded_by_import.end(), r->canonical_name) != loaded_by_import.end() &&
            env.dist(r->canonical_name))
          preload.push_back(r->canonical_name);
      }
  std::set<std::string> need_driver;
  size_t driver_libraries = 0;
  size_t next = 0;
  std::string start = first;
  for (int round = 0; next < paths.size() && round < 64; ++round) {
    std::vector<std::string> batch(paths.begin() + long(next), paths.end());
    JobOutcome o = ss.ask({{"op", "libraries"},
                           {"first_dists", preload},
                           {"first", start.empty() ? nlohmann::json() : nlohmann::json(start)},
                           {"paths", batch}});
    std::string trying;
    size_t answered = 0;
    bool opening = false;  // the imports before the libraries were done
    for (const auto& line : o.lines) {
      if (line.contains("opening")) opening = true;
      if (line.contains("trying")) trying = str(line, "trying");
      if (!line.contains("library")) continue;
      ++answered;
      trying.clear();
      std::string path = str(line, "library");
      bool ok = flag(line, "ok");
      record.push_back({{"library", path}, {"result", ok ? "ok" : str(line, "message")}});
      ss.verdict[path] = ok ? "loaded by ctypes.CDLL" : "failed: " + clip_for_display(str(line, "message"), 300);
      if (ok) continue;
      const BinaryFacts* b = binary_of.count(path) ? binary_of[path] : nullptr;
      std::string what = "ctypes.CDLL(" + path + ", RTLD_NOW)";
      if (std::string driver = missing_driver(str(line, "message"), gate.policy()); !driver.empty()) {
        need_driver.insert(driver);
        ss.verdict[path] = "not opened: needs the NVIDIA driver's " + driver;
        ++driver_libraries;
        continue;
      }
      // A library no import loaded, no extension module, failing only for a library of an
      // environment this one lacks (bitsandbytes' _cuda118.so needs libcudart.so.11.0 beside a CUDA
      // 13 torch): a candidate a loader picks elsewhere, not an import failure.
      if (std::string need = missing_soname(str(line, "message")); b && !is_extension_module(*b) && !need.empty()) {
        if (std::string env_name = environment_of(need); !env_name.empty()) {
          ss.verdict[path] = "not opened: a candidate needing " + need + " (" + env_name + ")";
          s.add("WS301",
                what + " failed on " + need + ", a library of " + env_name +
                    ", which this environment lacks; no import loaded " + install_path(b->path) +
                    ", and it is no extension module: a candidate a loader picks where " + env_name +
                    " is installed (wheelcheck's WC503 says the same)",
                b->path, std::nullopt, Severity::warning);
          continue;
        }
      }
      std::string gate_says = b ? gate.fails(b) : "";
      std::string warned = b ? gate.warns(b) : "";
      Observation ob{what, {}, {}, true, str(line, "message"), {path}};
      if (auto lead = leading_path(ob.error); !lead.empty()) ob.culprits.push_back(real_path(lead));
      if (gate_says.empty() && !warned.empty())
        s.add("WS301",
              what + " failed: " + clip_for_display(ob.error, 1000) +
                  " (wheelcheck warned: " + clip_for_display(warned, 300) + ")",
              b ? b->path : "", std::nullopt, Severity::warning);
      else
        s.add("WS301", what + " failed: " + clip_for_display(ob.error, 1000), b ? b->path : "");
      if (warned.empty()) judge.observe(ob, s);
    }
    if (o.done) {
      Observation ob;
      ob.what = "ctypes.CDLL of " + std::to_string(batch.size()) + " libraries after " +
                (start.empty() ? std::string("no import") : "import " + start);
      ob.loaded = loaded_pairs(o.final_line());
      judge.observe(ob, s);
      misbehaviour(o, ss.limits.exit_grace, ob.what, s);
      break;
    }
    std::string ended = how_it_ended(o, ss.limits.seconds);
    if (!opening) {
      // It died in the imports before any library (a dependency's import, or `first` crashing
      // this time): no library is to blame. Once more without those imports, then give up.
      std::string before = join(preload.get<std::vector<std::string>>(), ", ");
      if (!start.empty()) before += (before.empty() ? "" : ", ") + start;
      s.add("WS301", "import " + (before.empty() ? std::string("of nothing") : before) +
                         " before opening the wheel's libraries " + ended);
      if (start.empty() && preload.empty()) break;
      start.clear(), preload = nlohmann::json::array();
      continue;
    }
    // It died: the library it was opening is the culprit; the rest go on in a fresh process.
    std::string culprit = trying.empty() && answered < batch.size() ? batch[answered] : trying;
    if (culprit.empty()) break;
    record.push_back({{"library", culprit}, {"result", ended}});
    ss.verdict[culprit] = "failed: " + ended;
    const BinaryFacts* b = binary_of.count(culprit) ? binary_of[culprit] : nullptr;
    s.add("WS301", "ctypes.CDLL(" + culprit + ", RTLD_NOW) " + ended, b ? b->path : "");
    next += answered + 1;
  }
  if (driver_libraries)
    notes.push_back(std::to_string(driver_libraries) + " librar" + (driver_libraries == 1 ? "y needs" : "ies need") +
                    " the NVIDIA driver (" + join({need_driver.begin(), need_driver.end()}, ", ") +
                    "), which this machine lacks: not opened here (a GPU runner opens them)");
}

// Whether the wheel is what the environment has installed (--python): the same project and
// version, and the same bytes for its native files (the RECORD hashes of both).
bool installed_as_given(const WheelFacts& f, const Environment& env, const std::string& python, FindingSink& s) {
  if (!f.filename.valid) {
    s.add("WS305", "not a wheel file name this tool can read, so not found in the environment of " + python);
    return false;
  }
  const Environment::Dist* d = env.dist(f.filename.canonical_name);
  std::string version = f.metadata && !f.metadata->get_all("Version").empty() ? f.metadata->get_all("Version")[0]
                                                                              : f.filename.version_text;
  if (!d) {
    s.add("WS305", f.filename.name + " is not installed in the environment of " + python +
                       " (importlib.metadata finds no such distribution on its sys.path)");
    return false;
  }
  if (d->version != version) {
    s.add("WS305", "the environment of " + python + " has " + d->name + " " + d->version + ", not " + version);
    return false;
  }
  std::vector<std::string> differ;
  for (const auto& [path, file] : install_map(f)) {
    if (file.sha256.empty() || !is_native_library_name(path)) continue;
    auto real = env.real_of.find({f.filename.canonical_name, path});
    if (real == env.real_of.end()) continue;
    const auto& row = env.by_real.at(real->second);
    if (row.hash.starts_with("sha256=") && row.hash != "sha256=" + file.sha256) differ.push_back(path);
  }
  if (!differ.empty()) {
    s.add("WS305",
          "the installed " + d->name + " " + d->version +
              " is another build than this wheel: " + std::to_string(differ.size()) + " native file" +
              (differ.size() == 1 ? "" : "s") + " differ from its RECORD (" +
              join(differ.size() > 3 ? std::vector<std::string>(differ.begin(), differ.begin() + 3) : differ, ", ") +
              (differ.size() > 3 ? ", ..." : "") + ")");
    return false;
  }
  return true;
}

// The dependency wheels pip installed from local files (pip's --report: file:// URLs): they join
// the run, so the prediction sees the same files the process loads.
std::vector<std::string> local_dependencies(const nlohmann::json& pip_report, const std::vector<std::string>& given) {
  std::vector<std::string> out;
  std::set<std::string> mine;
  for (const auto& g : given) mine.insert(real_path(fs::absolute(g).string()));
  if (!pip_report.is_object() || !pip_report.contains("install") || !pip_report["install"].is_array()) return out;
  for (const auto& row : pip_report["install"]) {
    if (!row.is_object() || !row.contains("download_info") || !row["download_info"].is_object()) continue;
    std::string url = str(row["download_info"], "url");
    if (!url.starts_with("file://") || !url.ends_with(".whl")) continue;
    std::string path = real_path(percent_decode(std::string_view(url).substr(7)));  // pip escapes spaces
    if (!mine.count(path) && fs::is_regular_file(path)) out.push_back(path);
  }
  return out;
}

}  // namespace

int run_import(const ImportArgs& a) {
  for (const auto& w : a.wheels)
    if (!fs::is_regular_file(w) || !w.ends_with(".whl"))
      throw CLI::ValidationError("wheels", w + ": not a wheel file (wheelsmoke import installs local .whl files)");
  Policy policy = load_policy(a.policy);
  RunReport report = smoke_report("artifacts");
  report.policy = a.policy;
  std::unique_ptr<TempVenv> venv;
  std::vector<std::string> clean_env;
  ItemResult setup;
  setup.path = "environment";
  FindingSink setup_sink(empty_policy(), smoke_rules());
  nlohmann::json pip_report;
  Session ss{a, policy, a.python, nullptr, {}, JobLimits{}, {}};
  ss.limits.seconds = a.timeout;
  try {
    ss.script.create();
    if (a.python.empty()) {
      venv = std::make_unique<TempVenv>(a.keep_venv, a.venv_python);
      clean_env = TempVenv::clean_environment();
      ss.env = &clean_env;
      ss.python = venv->python();
      pip_report = venv->install(a.wheels, PipSources{a.index, a.find_links, a.no_index});
    }
  } catch (const std::exception& e) {
    setup_sink.add("WS301", e.what());
    setup.findings = setup_sink.take();
    report.items.push_back(std::move(setup));
    return cli::emit_reports(report, a.out);
  }
  // The environment as the interpreter sees it.
  JobOutcome eo = ss.ask({{"op", "env"}});
  Environment env;
  try {
    if (!eo.done) throw std::runtime_error(how_it_ended(eo, a.timeout));
    env = read_environment(eo.final_line());
  } catch (const std::exception& e) {
    setup_sink.add("WS301", "the environment of " + ss.python + " could not be read: " + e.what());
    setup.findings = setup_sink.take();
    report.items.push_back(std::move(setup));
    return cli::emit_reports(report, a.out);
  }
  // wheelcheck's prediction for the same files (a wheel it cannot read is an item with WC404).
  std::vector<std::string> run_paths = a.wheels;
  auto deps = local_dependencies(pip_report, a.wheels);
  run_paths.insert(run_paths.end(), deps.begin(), deps.end());
  std::unique_ptr<Gate> gate_holder;
  try {
    gate_holder = std::make_unique<Gate>(analyze_all(run_paths, analyze_options_for(policy), default_jobs()), policy);
  } catch (const std::exception& e) {
    setup_sink.add("WS301", "wheelcheck could not read the wheels for its prediction: " + std::string(e.what()));
    setup.findings = setup_sink.take();
    report.items.push_back(std::move(setup));
    return cli::emit_reports(report, a.out);
  }
  const Gate& gate = *gate_holder;
  Judge judge(env, gate);
  nlohmann::json installed = nlohmann::json::array();
  for (const auto& d : env.dists) installed.push_back(d.name + " " + d.version);
  setup.facts = {{"python", env.executable},
                 {"python_version", env.python},
                 {"venv", venv ? venv->dir() : ""},
                 {"installed", installed},
                 {"predicted_with", run_paths}};
  setup.findings = setup_sink.take();
  report.items.push_back(std::move(setup));

  for (size_t i = 0; i < a.wheels.size(); ++i) {
    const WheelFacts& f = gate.run()[i];
    ItemResult item;
    item.path = a.wheels[i];
    FindingSink s(empty_policy(), smoke_rules());
    for (const auto& p : f.unreadable) s.add("WC404", p.message, p.entry, p.offset);
    nlohmann::json imports = nlohmann::json::array(), libraries = nlohmann::json::array();
    size_t checked_before = judge.libraries_checked(), disagreed_before = judge.disagreements();
    auto names = import_names(f);
    if (f.readable() && installed_as_given(f, env, ss.python, s)) {
      std::set<std::string> loaded;  // and the binaries an import already failed on: not opened again
      for (const auto& m : names) {
        auto got = import_one(ss, m, judge, s, imports, loaded);
        loaded.insert(got.begin(), got.end());
      }
      std::vector<std::string> driver_notes;
      open_libraries(ss, f, env, gate, first_import(names, f), loaded, judge, s, libraries, driver_notes);
      size_t checked = judge.libraries_checked() - checked_before;
      if (judge.disagreements() == disagreed_before)
        item.notes.push_back(checked ? std::to_string(checked) + " librar" + (checked == 1 ? "y" : "ies") +
                                           " of the run loaded, all where wheelcheck predicted"
                                     : "no native library of the run loaded");
      item.notes.insert(item.notes.end(), driver_notes.begin(), driver_notes.end());
      if (names.empty()) item.notes.push_back("no import names (METADATA declares none, and no top-level module)");
    }
    item.findings = s.take();
    nlohmann::json verdicts = nlohmann::json::object();
    for (const auto& b : f.binaries) {
      if (b.format != "elf" || install_path(b.path).empty()) continue;
      auto real = env.real_of.find({f.filename.valid ? f.filename.canonical_name : "", install_path(b.path)});
      auto v = real == env.real_of.end() ? ss.verdict.end() : ss.verdict.find(real->second);
      verdicts[install_path(b.path)] = real == env.real_of.end() ? "not installed"
                                       : v == ss.verdict.end()   ? "not opened"
                                                                 : v->second;
    }
    ss.verdict.clear();
    item.facts = {{"import_names", names}, {"imports", imports}, {"libraries", libraries}, {"verdicts", verdicts}};
    report.items.push_back(std::move(item));
  }
  nlohmann::json cuda = nlohmann::json::object();
  for (const auto& [soname, from] : judge.cuda_loaded()) cuda[soname] = from;
  report.items.front().facts["cuda_libraries_loaded"] = cuda;
  return cli::emit_reports(report, a.out);
}

}  // namespace wc::smoke
