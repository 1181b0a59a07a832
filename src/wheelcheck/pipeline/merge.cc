#include "pipeline/merge.h"

#include <stdexcept>

#include "io/targets.h"
#include "pipeline/check.h"
#include "policy/policy.h"
#include "util/strings.h"

namespace wc {
namespace {

void add_report(MergeState& st, const std::string& file, const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", "") != "wheelcheck-report/1")
    throw std::runtime_error(file + ": not a wheelcheck JSON report (schema wheelcheck-report/1)");
  st.report.tool = j.value("tool", "wheelcheck");
  if (st.report.policy.empty())
    st.report.policy = j.value("policy", "");
  else if (j.value("policy", "") != st.report.policy)
    st.report.policy = "mixed";
  std::string source = j.value("policy_source", j.value("policy", ""));
  if (st.report.policy_source.empty())
    st.report.policy_source = source;
  else if (source != st.report.policy_source)
    st.report.policy_source = "mixed";
  if (j.contains("depth")) st.report.depth = j.value("depth", "");
  if (j.contains("shard") && j["shard"].is_object()) {
    // Validated before anything is sized by them: check writes 1 <= index <= count <= 10,000.
    const auto& sh = j["shard"];
    auto number = [&](const char* key, uint64_t max) -> uint64_t {
      const auto& v = sh.contains(key) ? sh[key] : nlohmann::json();
      if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
        throw std::runtime_error(file + ": shard " + key + " is not a whole number of at most " + std::to_string(max) +
                                 " (check --shard takes at most 10000 shards)");
      return v.get<uint64_t>();
    };
    const uint64_t count = number("count", 10000), index = number("index", 10000);
    if (count < 1 || index < 1 || index > count)
      throw std::runtime_error(file + ": shard " + std::to_string(index) + "/" + std::to_string(count) +
                               " is no shard (1 <= I <= N)");
    ShardInfo s{static_cast<unsigned>(index), static_cast<unsigned>(count),
                static_cast<size_t>(number("targets", uint64_t(1) << 40)), sh.value("digest", "")};
    if (!st.first) st.first = s;
    if (s.count != st.first->count || s.digest != st.first->digest)
      throw std::runtime_error(file + ": shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                               " of another run (" + st.files.front() + " is a shard of " +
                               std::to_string(st.first->count) + " over other targets)");
    if (!st.shards.emplace(s.index, file).second)
      throw std::runtime_error(file + ": shard " + std::to_string(s.index) + "/" + std::to_string(s.count) +
                               " is also " + st.shards[s.index]);
  }
  for (const char* key : {"wheels", "artifacts", "suites"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_array()) throw std::runtime_error(file + ": \"" + key + "\" is not a list");
    st.report.items_key = key;
    for (const auto& w : j[key]) {
      if (!w.is_object()) throw std::runtime_error(file + ": an item of \"" + key + "\" is not an object");
      ItemResult item;
      item.path = w.value("path", "");
      item.skipped = w.value("verdict", "") == "skip";
      item.skip_reason = w.value("skip_reason", "");
      item.size = w.value("size", uint64_t{0});
      item.bytes_read = w.value("bytes_read", uint64_t{0});
      if (w.contains("facts")) item.facts = w["facts"];
      if (w.contains("sbom") && w["sbom"].is_object()) item.sbom = w["sbom"];
      if (w.contains("provenance") && w["provenance"].is_object()) item.provenance = w["provenance"];
      if (w.contains("notes") && w["notes"].is_array())
        for (const auto& n : w["notes"])
          if (n.is_string()) item.notes.push_back(n.get<std::string>());
      if (w.contains("release")) {
        item.release = w["release"];
        try {
          if (auto m = member_from_json(w["release"])) st.members.push_back(std::move(*m));
        } catch (const std::runtime_error& e) {  // packed export names that do not decode
          throw std::runtime_error(file + ": " + item.path + ": " + e.what());
        }
      }
      for (const auto& f : w.value("findings", nlohmann::json::array())) {
        auto sev = parse_severity(f.value("severity", "error"));
        Finding x{f.value("rule", ""),    sev.value_or(Severity::error),
                  f.value("message", ""), f.value("entry", ""),
                  std::nullopt,           {}};
        if (f.contains("offset")) x.offset = f["offset"].get<uint64_t>();
        // A folded finding: its locations after the first are its repeats again.
        const auto locations = f.value("locations", nlohmann::json::array());
        if (!locations.is_array()) throw std::runtime_error(file + ": a finding's \"locations\" is not a list");
        for (size_t k = 1; k < locations.size(); ++k) {
          const auto& l = locations[k];
          if (!l.is_object() || !l.value("entry", nlohmann::json("")).is_string() ||
              !l.value("message", nlohmann::json("")).is_string() ||
              (l.contains("offset") && !l["offset"].is_number_unsigned()))
            throw std::runtime_error(file + ": a finding's location " + std::to_string(k) +
                                     " is not {entry, message, offset} of strings and an unsigned offset");
          Finding at{
              x.rule,       x.severity, locations[k].value("message", x.message), locations[k].value("entry", ""),
              std::nullopt, {}};
          if (locations[k].contains("offset")) at.offset = locations[k]["offset"].get<uint64_t>();
          x.repeats.push_back(std::move(at));
        }
        item.findings.push_back(std::move(x));
      }
      std::string name = target_basename(item.path);
      if (key == std::string("wheels") && !st.seen.emplace(name, file).second)
        throw std::runtime_error(name + " was checked twice (" + st.seen[name] + " and " + file +
                                 "): the shards overlap");
      st.report.items.push_back(std::move(item));
    }
  }
}

}  // namespace

void merge_report(MergeState& st, const std::string& file, const nlohmann::json& j) {
  st.files.push_back(file);
  try {
    add_report(st, file, j);
  } catch (const nlohmann::json::exception& e) {
    // A member of the wrong type (a path that is a number, an offset that is a string).
    std::string what = e.what();
    auto p = what.find("] ");
    throw std::runtime_error(
        file + ": not a wheelcheck report as check writes it: " + (p == std::string::npos ? what : what.substr(p + 2)));
  }
}

RunReport finish_merge(MergeState st, const std::string& policy, const std::string& baseline) {
  if (st.first) {
    std::vector<std::string> missing;
    for (unsigned i = 1; i <= st.first->count; ++i)
      if (!st.shards.count(i)) missing.push_back(std::to_string(i) + "/" + std::to_string(st.first->count));
    if (!missing.empty())
      throw std::runtime_error("shard" + std::string(missing.size() > 1 ? "s " : " ") + join(missing, ", ") +
                               " missing: give every shard's report");
    if (st.shards.size() != st.files.size()) throw std::runtime_error("a mix of shard reports and unsharded reports");
    if (st.report.items.size() != st.first->targets)
      throw std::runtime_error("the shards hold " + std::to_string(st.report.items.size()) + " wheels; the run had " +
                               std::to_string(st.first->targets) + " targets");
  }
  if (st.report.items_key == "wheels") {
    std::string spec = policy.empty() ? st.report.policy_source : policy;
    if (!spec.empty() && spec != "mixed") {
      Policy pol = load_policy(spec);  // throws naming what is wrong: exit 2
      st.report.policy = pol.name;
      st.report.policy_source = pol.spec;
      judge_set(st.report, st.members, pol, baseline);
    } else if (!baseline.empty()) {
      throw std::runtime_error(
          "--baseline needs the policy: the reports were written with different ones; pass --policy");
    }
  }
  return std::move(st.report);
}

}  // namespace wc
