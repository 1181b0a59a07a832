// The dtensor_view suite: sharding propagation of view ops (kernels/dtensor_view) against the
// law on simulated ranks (CPU), and on CUDA each rank's local view materialised by a strided-copy
// kernel, gathered, and compared bit for bit with the global view. Built-in cases are PyTorch's
// documented behaviour; a sweep checks the law on every op x shape x mesh x placement combination.
#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "dtensor_view/view.h"
#include "smoke/artifact/artifact.h"
#include "smoke/suites/suite.h"
#include "util/digest.h"

namespace wc::smoke {
namespace {

using nlohmann::json;
using namespace wc::dtv;

constexpr int64_t kMaxElements = int64_t(1) << 22;

// The element count, saturating at kMaxElements + 1 (no overflow on hostile shapes).
int64_t elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) {
    if (v < 0) return kMaxElements + 1;
    if (v && n > kMaxElements / v) return kMaxElements + 1;
    n *= v;
  }
  return n;
}

std::string shape_text(const Shape& s) {
  std::string o;
  for (int64_t v : s) o += (o.empty() ? "" : ",") + std::to_string(v);
  return "[" + o + "]";
}

struct ViewCase {
  std::string name;
  Shape shape, mesh;
  std::vector<Placement> in;
  Op op;
  bool expect_error = false;
  std::vector<Placement> expect;
  int expect_gathers = -1;  // -1: not stated
};

std::vector<Placement> pls(std::initializer_list<const char*> xs) {
  std::vector<Placement> v;
  for (const char* x : xs) v.push_back(*parse_placement(x));
  return v;
}

ViewCase vc(std::string name, Shape shape, Shape mesh, std::vector<Placement> in, Op op, std::vector<Placement> expect,
            int gathers) {
  return ViewCase{std::move(name), std::move(shape),  std::move(mesh), std::move(in), std::move(op),
                  false,           std::move(expect), gathers};
}
ViewCase vc_error(std::string name, Shape shape, Shape mesh, std::vector<Placement> in, Op op) {
  ViewCase c{std::move(name), std::move(shape), std::move(mesh), std::move(in), std::move(op), true, {}, -1};
  return c;
}

// PyTorch's behaviour, checked against torch 2.15.0 (fake process group; tests/dtensor_oracle_test.cc,
// `make test-torch`, runs the model and PyTorch over a 5,508-case sweep).
std::vector<ViewCase> builtin_cases() {
  return {
      vc("flatten_keeps_first_dim_shard", {8, 4}, {2}, pls({"S(0)"}), {"view", {32}}, pls({"S(0)"}), 0),
      vc("flatten_later_dim_strided", {2, 4}, {2}, pls({"S(1)"}), {"view", {8}}, pls({"SS(0,2)"}), 0),
      vc("split_keeps_shard", {24}, {2}, pls({"S(0)"}), {"view", {2, 12}}, pls({"S(0)"}), 0),
      vc("transpose_moves_shard", {4, 6}, {2}, pls({"S(0)"}), {"transpose", {0, 1}}, pls({"S(1)"}), 0),
      vc("unsqueeze_shifts_shard", {4, 6}, {2}, pls({"S(1)"}), {"unsqueeze", {0}}, pls({"S(2)"}), 0),
      vc("repeat_of_sharded_dim_gathers", {4, 6}, {2}, pls({"S(0)"}), {"repeat", {2, 1}}, pls({"R"}), 1),
      vc("view_2d_mesh_gathers_once", {4, 4, 4}, {2, 3}, pls({"S(1)", "R"}), {"view", {8, 8}}, pls({"R", "R"}), 1),
      vc("strided_shard_unflattens_back", {8}, {2}, pls({"SS(0,2)"}), {"view", {2, 4}}, pls({"S(1)"}), 0),
      vc("partial_passes_through", {4, 6}, {2}, pls({"P"}), {"view", {24}}, pls({"P"}), 0),
      vc("replicate_passes_through", {4, 6}, {2}, pls({"R"}), {"permute", {1, 0}}, pls({"R"}), 0),
      vc("permute_3d", {2, 4, 6}, {2}, pls({"S(2)"}), {"permute", {2, 0, 1}}, pls({"S(0)"}), 0),
      vc("reshape_infers_minus_one", {8, 4}, {4}, pls({"S(0)"}), {"reshape", {-1}}, pls({"S(0)"}), 0),
      vc("flatten_range", {2, 8, 3}, {2}, pls({"S(1)"}), {"flatten", {1, 2}}, pls({"S(1)"}), 0),
      vc("unflatten_even", {12, 5}, {2}, pls({"S(0)"}), {"unflatten", {0, 2, 6}}, pls({"S(0)"}), 0),
      // A strict view raises where a redistribution would be needed (PyTorch 2.15).
      vc_error("split_first_size_not_divisible_raises", {24}, {4}, pls({"S(0)"}), {"view", {2, 12}}),
      vc("squeeze_unsharded", {4, 1, 6}, {2}, pls({"S(2)"}), {"squeeze", {1}}, pls({"S(1)"}), 0),
      vc("expand_broadcast_dim", {1, 6}, {2}, pls({"S(1)"}), {"expand", {4, 6}}, pls({"S(1)"}), 0),
      vc("uneven_shard_transpose", {5, 3}, {2}, pls({"S(0)"}), {"transpose", {0, 1}}, pls({"S(1)"}), 0),
      vc("mesh_2d_two_shards", {4, 6}, {2, 3}, pls({"S(0)", "S(1)"}), {"transpose", {0, 1}}, pls({"S(1)", "S(0)"}), 0),
      vc("mesh_2d_flatten_both", {4, 6}, {2, 3}, pls({"S(0)", "S(1)"}), {"view", {24}}, pls({"S(0)", "SS(0,2)"}), 0),
      vc_error("unflatten_uneven_shard", {10}, {4}, pls({"S(0)"}), {"view", {2, 5}}),
      // reshape is a view to DTensor (it decomposes to aten.view): torch 2.15.0 raises on four gloo ranks.
      vc_error("reshape_unflatten_uneven_shard", {6}, {4}, pls({"S(0)"}), {"reshape", {2, 3}}),
      vc_error("squeeze_sharded_dim", {4, 1}, {2}, pls({"S(1)"}), {"squeeze", {1}}),
      // No split matches the split factor: the _StridedShard stays on the dim that holds its shards.
      vc("strided_split_factor_mismatch_keeps_strided", {8}, {2}, pls({"SS(0,2)"}), {"view", {4, 2}}, pls({"SS(0,2)"}),
         0),
      // Propagation keeps SS(0,8); the last rank's empty chunk views to its own empty local shape
      // (a process per rank over gloo; one process as every rank of a fake group seemed to raise).
      vc("uneven_flatten_of_later_dim_keeps_a_strided_shard", {8, 4}, {3}, pls({"S(1)"}), {"view", {32}},
         pls({"SS(0,8)"}), 0),
      vc_error("uneven_flatten_of_first_dim_raises", {8, 4}, {3}, pls({"S(0)"}), {"view", {2, 16}}),
      vc("unflatten_with_a_sharded_size_one_dim_on_an_empty_rank", {4, 1, 6}, {2}, pls({"S(1)"}),
         {"unflatten", {0, 2, 2}}, pls({"S(2)"}), 0),
      vc("unflatten_keeps_a_shard_on_another_dim", {4, 2, 6}, {2}, pls({"S(1)"}), {"unflatten", {0, 2, 2}},
         pls({"S(2)"}), 0),
  };
}

std::string check_case(const ViewCase& c) {
  Propagation p;
  try {
    p = propagate(c.op, c.shape, c.mesh, c.in);
  } catch (const ViewError& e) {
    return c.expect_error ? std::string() : std::string("raised: ") + e.what();
  }
  if (c.expect_error)
    return "expected the op to raise, but it propagates to " + to_string(p.out) + " with " +
           std::to_string(p.gathered) + " gather(s)";
  if (!c.expect.empty() && !(p.out == c.expect))
    return "output placements " + to_string(p.out) + ", the case expects " + to_string(c.expect) + " (" +
           std::to_string(p.gathered) + " mesh dim(s) gathered)";
  if (c.expect_gathers >= 0 && p.gathered != c.expect_gathers)
    return std::to_string(p.gathered) + " mesh dim(s) gathered, the case expects " + std::to_string(c.expect_gathers);
  LawResult law = check_law(c.op, c.shape, c.mesh, c.in);
  return law.error;
}

// On the device: every rank's local view by the strided-copy kernel, gathered and compared with the global view.
std::string check_case_cuda(const ViewCase& c, std::string* skip) {
  Propagation p;
  try {
    p = propagate(c.op, c.shape, c.mesh, c.in);
  } catch (const ViewError& e) {
    return c.expect_error ? std::string() : std::string("raised: ") + e.what();
  }
  if (c.expect_error) return "expected the op to raise, but it propagates to " + to_string(p.out);
  if (!c.expect.empty() && !(p.out == c.expect))
    return "output placements " + to_string(p.out) + ", the case expects " + to_string(c.expect);
  Tensor x = arange(c.shape);
  Shape out_shape;
  dim_map(c.op, c.shape, &out_shape);
  Tensor global = apply(strided_map(c.op, c.shape, out_shape), x);
  std::vector<Tensor> locals;
  std::vector<StridedMap> maps;
  for (const Shape& co : all_coords(c.mesh)) {
    locals.push_back(shard(x, c.mesh, p.in_effective, co));
    maps.push_back(strided_map(c.op, locals.back().shape, local_target(out_shape, c.mesh, p.out, co)));
  }
  auto dev = device_local_views(locals, maps, skip);
  if (!dev) return "";
  Tensor gathered;
  if (auto e = gather(*dev, out_shape, c.mesh, p.out, &gathered); !e.empty()) return "gathering the device views: " + e;
  if (gathered.data != global.data) {
    for (size_t i = 0; i < global.data.size(); ++i)
      if (gathered.data[i] != global.data[i])
        return "gathered element " + std::to_string(i) + " is " + std::to_string(gathered.data[i]) +
               ", the global view has " + std::to_string(global.data[i]);
  }
  return "";
}

// Artifact mode: the case on the artifact's real DTensors, judged against the model: the output
// placements, or an error where the model raises, and each rank's local output against that rank's
// shard of the global view (X = arange). Over gloo (the listed cases: a process per rank, real
// collectives) the output gathered by full_tensor() is judged too. Over a fake group (the sweep:
// one process as each rank in turn) collectives are no-ops, so local data is judged only where
// nothing was gathered and every rank viewed its own shard.
std::string check_case_artifact(Probe& probe, const ViewCase& c, const char* backend = "gloo") {
  json in = json::array();
  for (const auto& p : c.in) in.push_back(to_string(p));
  json a = probe.ask({{"op", "dtensor"},
                      {"shape", c.shape},
                      {"mesh", c.mesh},
                      {"in", in},
                      {"view_op", c.op.name},
                      {"args", c.op.args},
                      {"backend", backend}});
  if (!a.value("ok", false))
    return "the probe could not run the case: " + a.value("error_type", std::string("?")) + ": " +
           a.value("message", std::string());
  Propagation p;
  std::string model_error;
  try {
    p = propagate(c.op, c.shape, c.mesh, c.in);
  } catch (const ViewError& e) {
    model_error = e.what();
  }
  std::string artifact_error = a["error"].is_string() ? a["error"].get<std::string>() : "";
  // PyTorch's own redistribution fails an internal torch._check on a few _StridedShard and
  // double-sharded inputs the model gathers: a PyTorch defect, not a view rule (see
  // tests/dtensor_oracle_test.cc).
  if (model_error.empty() && p.gathered && artifact_error.find("Expected cond to be True") != std::string::npos)
    return "";
  if (!model_error.empty() || !artifact_error.empty()) {
    if (!model_error.empty() && !artifact_error.empty())  // agreed; the case's own words must agree too
      return c.expect_error || (c.expect.empty() && c.expect_gathers < 0)
                 ? ""
                 : "the case expects " + (c.expect.empty() ? std::string("the op to propagate") : to_string(c.expect)) +
                       ", but the artifact and the model both raise (" + artifact_error + ")";
    return model_error.empty()
               ? "the artifact raises (" + artifact_error + ") where the model propagates to " + to_string(p.out)
               : "the artifact propagates to " + a["out"].dump() + " where the model raises (" + model_error + ")";
  }
  std::vector<Placement> got;
  for (const auto& x : a["out"]) {
    auto q = x.is_string() ? parse_placement(x.get<std::string>()) : std::nullopt;
    if (!q) return "the artifact names an unknown placement " + x.dump();
    got.push_back(*q);
  }
  if (!(got == p.out))
    return "the artifact's output placements " + to_string(got) + ", the model's " + to_string(p.out);
  // The case's stated expectations (a --cases file's are part of the test): artifact and model
  // agree here, so one that disagrees disagrees with both.
  if (c.expect_error)
    return "the case expects the op to raise, but the artifact and the model both propagate to " + to_string(got);
  if (!c.expect.empty() && !(got == c.expect))
    return "the case expects " + to_string(c.expect) + ", but the artifact and the model both give " + to_string(got);
  if (c.expect_gathers >= 0 && p.gathered != c.expect_gathers)
    return "the case expects " + std::to_string(c.expect_gathers) + " mesh dim(s) gathered; the model gathers " +
           std::to_string(p.gathered) + " for the placements the artifact produced (" + to_string(got) + ")";
  const std::string over = a.value("backend", std::string());
  const bool real_collectives = over == "gloo" || over == "nccl";
  if (!a.value("data_valid", false) || (p.gathered && !real_collectives) || a.contains("skipped_ranks"))
    return "";  // placements only
  Tensor x = arange(c.shape);
  Tensor global = apply(strided_map(c.op, c.shape, p.out_shape), x);
  if (real_collectives) {
    std::string full;
    if (!a["full"].is_string() || !base64_decode(a["full"].get<std::string>(), &full))
      return "the artifact sent no gathered output (full_tensor())";
    if (full.size() != global.data.size() * 8 || std::memcmp(full.data(), global.data.data(), full.size()) != 0)
      return "the output gathered by full_tensor() differs from the global view (" + std::to_string(full.size()) +
             " bytes, the view " + std::to_string(global.data.size() * 8) + ")";
  }
  // A Partial output's local values are each rank's addend, not a shard of the view: its sum (the
  // gathered output above) is what is judged.
  if (std::any_of(p.out.begin(), p.out.end(), [](const Placement& q) { return q.kind == Placement::partial; }))
    return "";
  for (const auto& l : a["locals"]) {
    Shape coords = l["coords"].get<Shape>();
    Tensor want = shard(global, c.mesh, p.out, coords);
    std::string raw;
    if (!base64_decode(l["data"].get<std::string>(), &raw) || raw.size() != want.data.size() * 8)
      return "rank " + l["coords"].dump() + ": the local output holds " + std::to_string(raw.size()) +
             " bytes, the rank's shard of the global view " + std::to_string(want.data.size() * 8);
    if (std::memcmp(raw.data(), want.data.data(), raw.size()) != 0)
      return "rank " + l["coords"].dump() + ": the local output differs from the rank's shard of the global view";
  }
  return "";
}

std::string artifact_sweep(Probe& probe, int* checked) {
  const std::vector<Shape> shapes = {{8, 4}, {4, 6}, {2, 3, 4}, {24}, {5, 3}, {6, 4, 2}, {6}};
  const std::vector<Shape> meshes = {{2}, {3}, {4}, {2, 2}, {2, 3}};
  int n = 0;
  for (const Shape& s : shapes)
    for (const Shape& mesh : meshes) {
      for (const auto& in : sweep_placements(s, mesh, false))
        for (const Op& op : sweep_ops(s)) {
          ViewCase c{"sweep", s, mesh, in, op, false, {}, -1};
          if (auto e = check_case_artifact(probe, c, "fake"); !e.empty()) {
            std::string args;
            for (int64_t v : op.args) args += (args.empty() ? "" : ",") + std::to_string(v);
            return shape_text(s) + " " + to_string(in) + " on mesh " + shape_text(mesh) + " " + op.name + "(" + args +
                   "): " + e;
          }
          ++n;
        }
    }
  *checked = n;
  return "";
}

// Every op x shape x mesh x placement: where the op propagates, the law holds on every rank.
std::string law_sweep(int* checked) {
  const std::vector<Shape> shapes = {{8, 4}, {4, 6}, {2, 3, 4}, {24}, {4, 1, 6}, {5, 3}, {6, 4, 2}, {6}, {7}};
  const std::vector<Shape> meshes = {{2}, {3}, {4}, {2, 2}, {2, 3}};
  int n = 0;
  for (const Shape& s : shapes) {
    const std::vector<Op> ops = sweep_ops(s);
    for (const Shape& mesh : meshes) {
      for (const auto& in : sweep_placements(s, mesh, false))
        for (const Op& op : ops) {
          LawResult r;
          try {
            r = check_law(op, s, mesh, in);
          } catch (const ViewError&) {
            continue;  // raises, as PyTorch does for these (checked by the named cases)
          }
          ++n;
          if (!r.error.empty()) {
            std::string args;
            for (int64_t a : op.args) args += (args.empty() ? "" : ",") + std::to_string(a);
            std::string sh;
            for (int64_t v : s) sh += (sh.empty() ? "" : ",") + std::to_string(v);
            std::string me;
            for (int64_t v : mesh) me += (me.empty() ? "" : ",") + std::to_string(v);
            return "[" + sh + "] " + to_string(in) + " on mesh (" + me + ") " + op.name + "(" + args + ") -> " +
                   to_string(r.prop.out) + ": " + r.error;
          }
        }
    }
  }
  *checked = n;
  return n ? "" : "the sweep checked nothing";
}

Shape int_list(const json& v, const std::string& ptr) {
  if (!v.is_array()) throw std::runtime_error(ptr + ": expected an array of integers");
  Shape out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].is_array()) {  // unflatten's sizes may come nested: [dim, [sizes]]
      Shape inner = int_list(v[i], ptr + "/" + std::to_string(i));
      out.insert(out.end(), inner.begin(), inner.end());
      continue;
    }
    if (!v[i].is_number_integer() || v[i].get<int64_t>() > (int64_t(1) << 20) ||
        v[i].get<int64_t>() < -(int64_t(1) << 20))
      throw std::runtime_error(ptr + "/" + std::to_string(i) + ": expected an integer of magnitude below 2^20");
    out.push_back(v[i].get<int64_t>());
  }
  return out;
}

std::vector<Placement> placement_list(const json& v, const std::string& ptr) {
  if (!v.is_array()) throw std::runtime_error(ptr + ": expected an array of placements such as [\"S(0)\", \"R\"]");
  std::vector<Placement> out;
  for (size_t i = 0; i < v.size(); ++i) {
    auto p = v[i].is_string() ? parse_placement(v[i].get<std::string>()) : std::nullopt;
    if (!p) throw std::runtime_error(ptr + "/" + std::to_string(i) + ": expected S(d), R, P or SS(d,sf)");
    out.push_back(*p);
  }
  return out;
}

class DTensorViewSuite : public Suite {
 public:
  std::string name() const override { return "dtensor_view"; }
  std::string description() const override {
    return "DTensor view ops: sharding propagation (Shard, Replicate, Partial, _StridedShard; 1-D and 2-D meshes) "
           "checked on simulated ranks";
  }

  void add_cases(const json& doc) override {
    for_each_case(
        doc, {"name", "note", "shape", "mesh", "placements", "op", "args", "expect", "expect_gathers"},
        [&](const json& c, const std::string& ptr) {
          ViewCase vc;
          vc.name = c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>()
                                                                : "case_" + std::to_string(cases_.size() + 1);
          for (const char* k : {"shape", "mesh", "placements", "op", "expect"})
            if (!c.contains(k)) throw std::runtime_error(ptr + "/" + k + ": missing");
          vc.shape = int_list(c["shape"], ptr + "/shape");
          for (int64_t v : vc.shape)
            if (v < 0) throw std::runtime_error(ptr + "/shape: sizes must be non-negative");
          if (vc.shape.size() > 8) throw std::runtime_error(ptr + "/shape: more than 8 dimensions");
          if (elements(vc.shape) > kMaxElements) throw std::runtime_error(ptr + "/shape: more than 2^22 elements");
          vc.mesh = int_list(c["mesh"], ptr + "/mesh");
          if (vc.mesh.empty() || vc.mesh.size() > 2) throw std::runtime_error(ptr + "/mesh: 1 or 2 mesh dims");
          for (int64_t m : vc.mesh)
            if (m < 1 || m > 64) throw std::runtime_error(ptr + "/mesh: sizes between 1 and 64");
          vc.in = placement_list(c["placements"], ptr + "/placements");
          if (vc.in.size() != vc.mesh.size())
            throw std::runtime_error(ptr + "/placements: one per mesh dim (" + std::to_string(vc.mesh.size()) + ")");
          if (!c["op"].is_string()) throw std::runtime_error(ptr + "/op: expected a string");
          vc.op.name = c["op"].get<std::string>();
          static const std::set<std::string> ops = {"view",    "reshape", "flatten",   "unflatten", "transpose",
                                                    "permute", "squeeze", "unsqueeze", "expand",    "repeat"};
          if (!ops.count(vc.op.name))
            throw std::runtime_error(
                ptr + "/op: unknown op '" + vc.op.name +
                "' (view, reshape, flatten, unflatten, transpose, permute, squeeze, unsqueeze, expand, repeat)");
          if (c.contains("args")) vc.op.args = int_list(c["args"], ptr + "/args");
          if (vc.op.args.size() > 8) throw std::runtime_error(ptr + "/args: more than 8 values");
          // Every simulated rank shards the whole tensor: keep ranks x elements small.
          int64_t ranks = 1, out_elements = 0;
          for (int64_t m : vc.mesh) ranks *= m;
          try {
            Shape out;
            dim_map(vc.op, vc.shape, &out);
            out_elements = elements(out);
          } catch (const ViewError&) {
            // the op raises: the case's outcome, judged when it runs
          }
          if (out_elements > kMaxElements)
            throw std::runtime_error(ptr + "/args: the output would have more than 2^22 elements");
          if (ranks * std::max(elements(vc.shape), out_elements) > (int64_t(1) << 26))
            throw std::runtime_error(ptr + "/mesh: ranks x elements above 2^26 (a smoke case stays small)");
          if (c["expect"].is_string() && c["expect"] == "error") {
            vc.expect_error = true;
          } else {
            vc.expect = placement_list(c["expect"], ptr + "/expect");
            if (vc.expect.size() != vc.mesh.size())
              throw std::runtime_error(ptr + "/expect: one placement per mesh dim (" + std::to_string(vc.mesh.size()) +
                                       ")");
          }
          if (c.contains("expect_gathers")) {
            if (!c["expect_gathers"].is_number_integer() || c["expect_gathers"].get<int64_t>() < 0 ||
                c["expect_gathers"].get<int64_t>() > 2)
              throw std::runtime_error(ptr + "/expect_gathers: 0, 1 or 2");
            vc.expect_gathers = int(c["expect_gathers"].get<int64_t>());
          }
          cases_.push_back(vc);
        });
  }

  std::vector<CaseOutcome> run(const RunContext& ctx) override {
    std::vector<CaseOutcome> out;
    const std::string s = name();
    auto all = builtin_cases();
    all.insert(all.end(), cases_.begin(), cases_.end());
    const size_t builtin = all.size() - cases_.size();
    auto label = [&](size_t i) { return (i < builtin ? "builtin/" : "case/") + all[i].name; };
    if (ctx.probe) {
      // The listed cases over gloo on the CPU and over nccl on the artifact's GPUs (a GPU per rank);
      // the sweep (placements, thousands of cases) over the fake group.
      if (ctx.want_cpu) {
        for (size_t i = 0; i < all.size(); ++i)
          out.push_back(run_case(s, label(i), "artifact", [&, i] { return check_case_artifact(*ctx.probe, all[i]); }));
        out.push_back(run_case(s, "sweep", "artifact", [&] {
          int n = 0;
          return artifact_sweep(*ctx.probe, &n);
        }));
      }
      if (std::string why = artifact_cuda_unavailable(*ctx.probe, ctx.want_cuda); !why.empty()) {
        if (ctx.want_cuda) out.push_back(skipped_case(s, "nccl", "artifact-cuda", why));
        return out;
      }
      const int gpus = artifact_gpu_count(*ctx.probe);
      for (size_t i = 0; i < all.size(); ++i) {
        int64_t ranks = 1;
        for (int64_t m : all[i].mesh) ranks *= m;
        if (ranks > gpus)
          out.push_back(skipped_case(s, label(i), "artifact-cuda",
                                     "nccl needs a GPU per rank: the mesh has " + std::to_string(ranks) +
                                         " ranks, the artifact sees " + std::to_string(gpus) + " GPU(s)"));
        else
          out.push_back(run_case(s, label(i), "artifact-cuda",
                                 [&, i] { return check_case_artifact(*ctx.probe, all[i], "nccl"); }));
      }
      return out;
    }
    if (ctx.want_cpu) {
      for (size_t i = 0; i < all.size(); ++i)
        out.push_back(run_case(s, label(i), "cpu", [&, i] { return check_case(all[i]); }));
      out.push_back(run_case(s, "law_sweep", "cpu", [] {
        int n = 0;
        return law_sweep(&n);
      }));
    }
    if (ctx.want_cuda) {
      std::string why;
      if (!cuda_built() || !device_local_views({}, {}, &why)) {
        if (why.empty()) why = "no CUDA device";
        for (size_t i = 0; i < all.size(); ++i) out.push_back(skipped_case(s, label(i), "cuda", why));
        return out;
      }
      for (size_t i = 0; i < all.size(); ++i)
        out.push_back(run_case(s, label(i), "cuda", [&, i] {
          std::string skip;
          return check_case_cuda(all[i], &skip);
        }));
    }
    return out;
  }

 private:
  std::vector<ViewCase> cases_;
};

}  // namespace

std::unique_ptr<Suite> make_dtensor_view_suite() { return std::make_unique<DTensorViewSuite>(); }

}  // namespace wc::smoke
