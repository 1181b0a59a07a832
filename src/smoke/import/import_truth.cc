#include "smoke/import/import_truth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "binary/elf_reader.h"
#include "binary/sparse_file.h"
#include "pipeline/check.h"
#include "rules/loader/install_set.h"
#include "util/strings.h"
#include "wheel/entry_names.h"
#include "wheel/filename.h"

namespace wc::smoke {

// ---- the environment ------------------------------------------------------------------------------

namespace {

std::string str_field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) throw std::runtime_error(where + "\"" + key + "\" is not a string");
  return j[key].get<std::string>();
}

bool under(const std::string& path, const std::string& dir) {
  if (dir.empty() || dir == "/") return false;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

}  // namespace

const Environment::Dist* Environment::dist(const std::string& canonical) const {
  for (const auto& d : dists)
    if (d.canonical == canonical) return &d;
  return nullptr;
}

Environment read_environment(const nlohmann::json& a) {
  Environment env;
  if (!a.is_object()) throw std::runtime_error("the environment answer is not an object");
  env.python = str_field(a, "python", "");
  env.executable = str_field(a, "executable", "");
  env.prefix = str_field(a, "prefix", "");
  env.base_prefix = str_field(a, "base_prefix", "");
  env.ld_library_path = str_field(a, "ld_library_path", "");
  if (!a.contains("distributions") || !a["distributions"].is_array())
    throw std::runtime_error("\"distributions\" is missing or not an array");
  for (const auto& d : a["distributions"]) {
    std::string where = "distribution " + std::to_string(env.dists.size()) + ": ";
    if (!d.is_object()) throw std::runtime_error(where + "not an object");
    Environment::Dist dist;
    dist.name = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>() : "";
    dist.version = d.contains("version") && d["version"].is_string() ? d["version"].get<std::string>() : "";
    dist.canonical = canonicalize_name(dist.name);
    if (dist.name.empty() || dist.version.empty()) continue;  // a broken dist-info: nothing to own files by
    size_t index = env.dists.size();
    env.dists.push_back(dist);
    if (!d.contains("files") || !d["files"].is_array()) continue;
    for (const auto& f : d["files"]) {
      if (!f.is_array() || f.size() != 3 || !f[0].is_string() || !f[1].is_string() || !f[2].is_string())
        throw std::runtime_error(where + "a file row is not [path, real path, hash]");
      std::string real = f[1].get<std::string>();
      env.by_real.emplace(real, Environment::File{index, f[0].get<std::string>(), f[2].get<std::string>()});
      env.real_of[{dist.canonical, f[0].get<std::string>()}] = real;
    }
  }
  return env;
}

Placement place(const Environment& env, const std::string& real) {
  Placement p;
  if (auto it = env.by_real.find(real); it != env.by_real.end()) {
    p.origin = Origin::installed;
    p.file = &it->second;
    return p;
  }
  // Another environment's packages are never the system's or the interpreter's own.
  if (real.find("/site-packages/") != std::string::npos || real.find("/dist-packages/") != std::string::npos) return p;
  // The interpreter's own files: everything under a prefix of its own (pyenv, a python.org
  // build), its lib-dynload modules under /usr.
  if (under(real, env.base_prefix) && (env.base_prefix != "/usr" || real.find("/lib-dynload/") != std::string::npos)) {
    p.origin = Origin::interpreter;
    return p;
  }
  // The platform's own library directories (and their multiarch subdirectories); /usr/local, /opt
  // and /usr/local/cuda are not the platform's.
  for (const char* d : {"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32"})
    if (under(real, d)) {
      p.origin = Origin::system;
      return p;
    }
  return p;
}

std::string describe(const Environment& env, const std::string& real) {
  Placement p = place(env, real);
  switch (p.origin) {
    case Origin::installed: {
      const auto& d = env.dists[p.file->dist];
      return d.name + " " + d.version + " (" + p.file->record_path + ")";
    }
    case Origin::interpreter: return "the interpreter (" + real + ")";
    case Origin::system: return "the system (" + real + ")";
    case Origin::outside: break;
  }
  return "outside the install set (" + real + ")";
}

// ---- shared objects on disk ---------------------------------------------------------------------

std::optional<BinaryFacts> read_shared_object(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return std::nullopt;
  }
  SparseFile file(uint64_t(st.st_size));
  uint64_t fetched = 0;
  auto fetch = [&](uint64_t off, uint64_t len) {
    len = std::min<uint64_t>(len, file.size() - std::min(off, file.size()));
    std::vector<uint8_t> buf(len);
    ssize_t n = len ? pread(fd, buf.data(), len, off_t(off)) : 0;
    if (n > 0) file.add(off, buf.data(), size_t(n));
    fetched += len;
  };
  fetch(0, 64u << 10);
  std::optional<BinaryFacts> out;
  // The reader asks for what it needs (the dynamic section, then the tables it points at); a
  // library's dynamic tables are a few MiB at most, so 64 MiB and 16 rounds bound a hostile file.
  for (int round = 0; round < 16 && fetched < (64u << 20); ++round) {
    try {
      BinaryFacts b;
      b.path = path;
      read_elf(file, b);
      out = std::move(b);
      break;
    } catch (const NeedRanges& need) {
      for (const auto& r : need.ranges) fetch(r.off, r.len);
    } catch (const std::exception&) {
      break;
    }
  }
  close(fd);
  return out;
}

// ---- the gate -------------------------------------------------------------------------------------

Gate::Gate(std::vector<WheelFacts> run, Policy policy) : run_(std::move(run)), policy_(std::move(policy)) {
  InstallSetIndex index(run_);
  for (const auto& f : run_) {
    sets_.push_back(install_set_for(f, run_, &index, policy_.cuda.import_loaded));
    std::string project = f.filename.valid ? f.filename.canonical_name : "";
    for (const auto& b : f.binaries)
      if (b.format == "elf" && !install_path(b.path).empty()) binaries_[{project, install_path(b.path)}] = {&f, &b};
    for (const auto& finding : judge_wheel(f, run_, policy_, &index).findings) {
      if (finding.rule != "WC503" && finding.rule != "WC514") continue;
      auto& into = finding.severity == Severity::error ? fails_ : warns_;
      for (const auto& b : f.binaries)
        if (b.path == finding.entry && !into.count(&b)) into[&b] = finding.rule + ": " + finding.message;
    }
  }
}

std::pair<const WheelFacts*, const BinaryFacts*> Gate::binary(const std::string& canonical,
                                                              const std::string& record_path) const {
  auto it = binaries_.find({canonical, record_path});
  return it == binaries_.end() ? std::pair<const WheelFacts*, const BinaryFacts*>{nullptr, nullptr} : it->second;
}

std::string Gate::fails(const BinaryFacts* b) const {
  auto it = fails_.find(b);
  return it == fails_.end() ? "" : it->second;
}

std::string Gate::warns(const BinaryFacts* b) const {
  auto it = warns_.find(b);
  return it == warns_.end() ? "" : it->second;
}

NeedPrediction Gate::predict(const WheelFacts& f, const BinaryFacts& b, const std::string& need) const {
  size_t i = size_t(&f - run_.data());
  return predict_need(f, b, need, sets_.at(i), policy_);
}

bool Gate::torch_artifact() const {
  return std::any_of(run_.begin(), run_.end(),
                     [](const WheelFacts& f) { return f.filename.valid && f.filename.canonical_name == "torch"; });
}

bool Gate::cuda_library(const std::string& soname) const {
  for (const auto& [project, globs] : policy_.cuda.providers)
    if ((project.starts_with("nvidia-") || project.starts_with("cuda-toolkit")) && glob_any(globs, soname)) return true;
  return false;
}

// ---- the judge ------------------------------------------------------------------------------------

const BinaryFacts* Judge::facts_of(const std::string& real) {
  auto it = read_.find(real);
  if (it == read_.end()) it = read_.emplace(real, read_shared_object(real)).first;
  return it->second ? &*it->second : nullptr;
}

void Judge::add(FindingSink& s, const std::string& rule, const std::string& key, const std::string& message,
                const std::string& entry, std::optional<Severity> severity) {
  if (!said_.insert(rule + "\n" + entry + "\n" + key).second) return;
  if (rule == "WS304") ++disagreements_;
  s.add(rule, message, entry, std::nullopt, severity);
}

namespace {

std::string soname_of(const BinaryFacts* b, const std::string& real) {
  return b && !b->soname.empty() ? b->soname : std::string(last_component(real));
}

std::string predicted_text(const NeedPrediction& p) {
  switch (p.where) {
    case NeedPrediction::Where::wheel:
      return (p.file.wheel && p.file.wheel->filename.valid ? p.file.wheel->filename.name + " " : std::string()) + "(" +
             p.file.path + ")";
    case NeedPrediction::Where::system: return "the system";
    case NeedPrediction::Where::dependency: return "the dependency " + p.dependency;
    case NeedPrediction::Where::nowhere: break;
  }
  return "nowhere (WC503)";
}

}  // namespace

void Judge::observe(const Observation& o, FindingSink& s) {
  // Each loaded object once: where it is, and what it is.
  struct Loaded {
    std::string name, real;
    Placement where;
    const BinaryFacts* facts;
  };
  std::vector<Loaded> all;
  std::map<std::string, std::vector<const Loaded*>> by_soname;
  std::set<std::string> seen;
  for (const auto& [name, real] : o.loaded) {
    if (!seen.insert(real).second) continue;
    all.push_back({name, real, place(env_, real), facts_of(real)});
  }
  for (const auto& l : all) {
    by_soname[soname_of(l.facts, l.real)].push_back(&l);
    if (l.facts && !l.facts->soname.empty() && l.facts->soname != std::string(last_component(l.real)))
      by_soname[std::string(last_component(l.real))].push_back(&l);
  }
  auto needed_by = [&](const Loaded& l) {
    std::vector<std::string> who;
    std::string so = soname_of(l.facts, l.real);
    for (const auto& other : all)
      if (other.facts &&
          std::find(other.facts->needed.begin(), other.facts->needed.end(), so) != other.facts->needed.end())
        who.push_back(describe(env_, other.real));
    return who;
  };
  std::vector<std::string> ld_dirs;
  for (auto d : split(env_.ld_library_path, ':')) {
    while (d.size() > 1 && d.back() == '/') d.remove_suffix(1);
    if (!d.empty()) ld_dirs.emplace_back(d);
  }

  // WS302: outside the install set and the system; CUDA libraries that are not the wheels'.
  for (const auto& l : all) {
    std::string so = soname_of(l.facts, l.real);
    if (gate_.cuda_library(so)) cuda_loaded_[so].insert(describe(env_, l.real));
    if (o.before.count(l.real)) continue;
    bool outside = l.where.origin == Origin::outside;
    bool cuda_from_system = !outside && l.where.origin == Origin::system && gate_.cuda_library(so) &&
                            !glob_any(gate_.policy().cuda.driver_libraries, so);
    if (!outside && !cuda_from_system) continue;
    auto who = needed_by(l);
    std::string via;
    for (const auto& d : ld_dirs)
      if (under(l.name, d) || under(l.real, d)) via = " (found through LD_LIBRARY_PATH=" + d + ")";
    std::string needers =
        who.empty()
            ? "opened by name with dlopen (nothing loaded needs it)"
            : "needed by " + join(who.size() > 3 ? std::vector<std::string>(who.begin(), who.begin() + 3) : who, ", ") +
                  (who.size() > 3 ? " and " + std::to_string(who.size() - 3) + " more" : "");
    if (outside)
      add(s, "WS302", l.real,
          o.what + " loaded " + l.real + " from outside the install set and the system's libraries" + via + "; " +
              needers);
    else if (gate_.torch_artifact())
      add(s, "WS302", l.real,
          o.what + " loaded the CUDA library " + so + " from the system (" + l.real + ")" + via +
              ", not from the nvidia-* wheels of the environment; " + needers);
  }

  // WS303: one runtime, two files.
  std::map<std::string, std::vector<const Loaded*>> runtimes;
  for (const auto& l : all)
    if (l.facts) {
      std::string r = runtime_of(*l.facts, gate_.policy().linux.runtimes);
      if (!r.empty()) runtimes[r].push_back(&l);
    }
  for (const auto& [runtime, copies] : runtimes) {
    if (copies.size() < 2) continue;
    std::vector<std::string> where, reals;
    for (const auto* c : copies) where.push_back(describe(env_, c->real)), reals.push_back(c->real);
    std::sort(reals.begin(), reals.end());
    // Two CUDA runtimes each keep their own context state but share the driver's: torchvision
    // 0.29's bundled libcudart beside torch's imports and works. A warning; the OpenMP and Fortran
    // runtimes stay errors.
    add(s, "WS303", join(reals, "\n"),
        std::to_string(copies.size()) + " copies of " + runtime + " loaded in one process after " + o.what + ": " +
            join(where, ", ") +
            (runtime == "libcudart"
                 ? "; each keeps its own runtime state over one driver (it works, at the cost of memory and of "
                   "sharing nothing between them)"
                 : "; two copies keep two states (thread pools, I/O units) and can crash or oversubscribe"),
        "", runtime == "libcudart" ? std::optional(Severity::warning) : std::nullopt);
  }

  // WS304: the loaded binaries of the run against wheelcheck's prediction. A load that took
  // something from outside the install set (WS302) proves nothing about the gate's WC503/WC514.
  bool relied_outside =
      std::any_of(all.begin(), all.end(), [](const Loaded& l) { return l.where.origin == Origin::outside; });
  for (const auto& l : all) {
    if (l.where.origin != Origin::installed) continue;
    const auto& dist = env_.dists[l.where.file->dist];
    auto [w, b] = gate_.binary(dist.canonical, l.where.file->record_path);
    if (!b) continue;
    checked_.insert(l.real);
    std::string label = dist.name + " " + l.where.file->record_path;
    if (std::string why = gate_.fails(b); !why.empty() && !relied_outside)
      add(s, "WS304", "loaded\n" + l.real,
          label + " loaded (" + o.what + "), but wheelcheck says it cannot: " + clip_for_display(why, 300) +
              " (a false alarm of the gate: the artifact is fine, the gate's prediction was wrong)",
          b->path, Severity::warning);
    for (const auto& need : b->needed) {
      auto it = by_soname.find(need);
      if (it == by_soname.end()) continue;
      const Loaded& m = *it->second.front();
      NeedPrediction p = gate_.predict(*w, *b, need);
      bool agree = false;
      switch (p.where) {
        case NeedPrediction::Where::wheel: {
          std::string project =
              p.file.wheel && p.file.wheel->filename.valid ? p.file.wheel->filename.canonical_name : "";
          auto real = env_.real_of.find({project, p.file.path});
          agree = (real != env_.real_of.end() && real->second == m.real) || o.before.count(m.real);
          break;
        }
        case NeedPrediction::Where::system:
          agree = m.where.origin == Origin::system || m.where.origin == Origin::interpreter;
          break;
        case NeedPrediction::Where::dependency: {
          if (m.where.origin == Origin::installed) {
            const auto& owner = env_.dists[m.where.file->dist].canonical;
            agree = owner == p.dependency || glob_any(gate_.policy().cuda.provided_by(owner), need);
          }
          break;
        }
        case NeedPrediction::Where::nowhere: break;  // the binary's WC503 error is the false alarm said above
      }
      if (!agree && p.where != NeedPrediction::Where::nowhere)
        add(s, "WS304", l.real + "\n" + need + "\n" + m.real,
            label + " needs " + need + ": wheelcheck predicted it from " + predicted_text(p) + ", the process loaded " +
                describe(env_, m.real),
            b->path);
    }
  }

  // WS304: a failure wheelcheck did not foresee.
  if (o.failed)
    for (const auto& culprit : o.culprits) {
      Placement p = place(env_, culprit);
      if (p.origin != Origin::installed) continue;
      const auto& dist = env_.dists[p.file->dist];
      auto [w, b] = gate_.binary(dist.canonical, p.file->record_path);
      if (!b || !gate_.fails(b).empty()) continue;
      add(s, "WS304", "miss\n" + culprit,
          dist.name + " " + p.file->record_path + " failed to load (" + o.what + ": " + clip_for_display(o.error, 300) +
              "), but wheelcheck passes it (a miss of the gate)",
          b->path);
    }
}

}  // namespace wc::smoke
