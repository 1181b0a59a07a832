#include "dtensor_view/view.h"

#include "util/parse.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace wc::dtv {

namespace {

int64_t prod(const Shape& s, size_t b = 0, size_t e = SIZE_MAX) {
  int64_t p = 1;
  e = std::min(e, s.size());
  for (auto it = s.begin() + ptrdiff_t(std::min(b, e)); it != s.begin() + ptrdiff_t(e); ++it) p *= *it;
  return p;
}

std::string shape_str(const Shape& s) {
  std::string o = "[";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + "]";
}

int64_t norm_dim(int64_t d, size_t ndim, const std::string& op) {
  int64_t n = int64_t(ndim);
  if (d < -std::max<int64_t>(n, 1) || d >= std::max<int64_t>(n, 1))
    throw ViewError(op + ": Dimension out of range (expected to be in range of [" +
                    std::to_string(-std::max<int64_t>(n, 1)) + ", " + std::to_string(std::max<int64_t>(n, 1) - 1) +
                    "], but got " + std::to_string(d) + ")");
  return d < 0 ? d + n : d;
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

DimSpec in_dim(int64_t d) {
  DimSpec s;
  s.kind = DimSpec::input;
  s.input_dim = d;
  return s;
}

DimSpec flatten_of(std::vector<DimSpec> dims) {
  if (dims.empty()) return DimSpec{};  // singleton
  if (dims.size() == 1) return dims[0];
  DimSpec s;
  s.kind = DimSpec::flatten;
  s.inner = std::move(dims);
  return s;
}

DimSpec split_of(const DimSpec& dim, const Shape& group, int idx) {
  if (group.size() == 1) return dim;
  if (group[size_t(idx)] == 1) return DimSpec{};
  DimSpec s;
  s.kind = DimSpec::split;
  s.inner = {dim};
  int new_idx = 0, k = 0;
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] != 1) {
      if (int(i) == idx) new_idx = k;
      s.group.push_back(group[i]);
      ++k;
    }
  s.split_id = new_idx;
  return s;
}

// Fills one -1 and checks the element count, as torch's infer_size does.
Shape infer_size(int64_t numel, Shape to) {
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] == -1) {
      if (infer >= 0) throw ViewError("only one dimension can be inferred");
      infer = int(i);
    } else if (to[i] < 0) {
      throw ViewError("invalid shape dimension " + std::to_string(to[i]));
    } else {
      if (to[i] && known > std::numeric_limits<int64_t>::max() / to[i])
        throw ViewError("shape '" + shape_str(to) + "' is too large");
      known *= to[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known)
      throw ViewError("shape '" + shape_str(to) + "' is invalid for input of size " + std::to_string(numel));
    to[size_t(infer)] = numel / known;
  } else if (known != numel) {
    throw ViewError("shape '" + shape_str(to) + "' is invalid for input of size " + std::to_string(numel));
  }
  return to;
}

}  // namespace

std::string to_string(const Placement& p) {
  switch (p.kind) {
    case Placement::shard: return "S(" + std::to_string(p.dim) + ")";
    case Placement::replicate: return "R";
    case Placement::partial: return "P";
    case Placement::strided: return "SS(" + std::to_string(p.dim) + "," + std::to_string(p.split_factor) + ")";
  }
  return "?";
}

std::string to_string(const std::vector<Placement>& ps) {
  std::string o = "[";
  for (size_t i = 0; i < ps.size(); ++i) o += (i ? ", " : "") + to_string(ps[i]);
  return o + "]";
}

std::optional<Placement> parse_placement(const std::string& raw) {
  std::string s;
  for (char c : raw)
    if (c != ' ') s += c;
  Placement p;
  if (s == "R") return p;
  if (s == "P") {
    p.kind = Placement::partial;
    return p;
  }
  auto num = [](const std::string& t, int64_t* v) {
    auto x = parse_decimal(t, 1u << 20);
    if (x) *v = int64_t(*x);
    return x.has_value();
  };
  int64_t d = 0, sf = 0;
  if (s.size() > 3 && s.rfind("S(", 0) == 0 && s.back() == ')' && num(s.substr(2, s.size() - 3), &d)) {
    p.kind = Placement::shard;
    p.dim = int(d);
    return p;
  }
  if (s.size() > 6 && s.rfind("SS(", 0) == 0 && s.back() == ')') {
    std::string body = s.substr(3, s.size() - 4);
    size_t comma = body.find(',');
    if (comma != std::string::npos && num(body.substr(0, comma), &d) && num(body.substr(comma + 1), &sf) && sf >= 1) {
      p.kind = Placement::strided;
      p.dim = int(d);
      p.split_factor = sf;
      return p;
    }
  }
  return std::nullopt;
}

std::string to_string(const DimSpec& s) {
  switch (s.kind) {
    case DimSpec::input: return "In" + std::to_string(s.input_dim);
    case DimSpec::singleton: return "Singleton";
    case DimSpec::newdim: return "NewDim(" + std::to_string(s.size) + ")";
    case DimSpec::broadcast: return "Broadcast(" + to_string(s.inner[0]) + "," + std::to_string(s.size) + ")";
    case DimSpec::repeat: return "Repeat(" + to_string(s.inner[0]) + "," + std::to_string(s.size) + ")";
    case DimSpec::flatten: {
      std::string o = "Flatten(";
      for (size_t i = 0; i < s.inner.size(); ++i) o += (i ? "," : "") + to_string(s.inner[i]);
      return o + ")";
    }
    case DimSpec::split:
      return "Split(" + to_string(s.inner[0]) + "," + shape_str(s.group) + "," + std::to_string(s.split_id) + ")";
  }
  return "?";
}

std::vector<DimSpec> view_groups(const Shape& from, const Shape& to_raw, Shape* out_shape) {
  int64_t n = prod(from);
  for (int64_t v : from)
    if (v == 0) throw ViewError("zero-size tensors are outside this model");
  Shape to = infer_size(n, to_raw);
  *out_shape = to;
  std::vector<DimSpec> result;
  size_t fi = 0, ti = 0;
  while (fi < from.size() || ti < to.size()) {
    std::vector<int64_t> from_group;
    Shape to_group;
    int64_t f = 1, t = 1;
    if (fi < from.size()) {
      f = from[fi];
      from_group.push_back(int64_t(fi++));
    }
    if (ti < to.size()) {
      t = to[ti];
      to_group.push_back(t);
      ++ti;
    }
    if (f == 1 && t != 1) {  // an input dim of 1 that maps to nothing
      --ti;
      to_group.clear();
    } else if (f != 1 && t == 1) {  // an output dim of 1 from nothing
      --fi;
      from_group.clear();
    } else {
      while (f != t) {
        if (f < t) {
          if (fi >= from.size()) throw ViewError("view_groups: sizes do not pair up");
          f *= from[fi];
          from_group.push_back(int64_t(fi++));
        } else {
          if (ti >= to.size()) throw ViewError("view_groups: sizes do not pair up");
          t *= to[ti];
          to_group.push_back(to[ti++]);
        }
      }
    }
    if (!to_group.empty()) {
      std::vector<DimSpec> dims;
      for (int64_t d : from_group) dims.push_back(in_dim(d));  // size-1 dims too, as PyTorch 2.15 keeps them
      DimSpec flat = flatten_of(dims);
      for (size_t k = 0; k < to_group.size(); ++k) result.push_back(split_of(flat, to_group, int(k)));
    }
  }
  return result;
}

std::vector<DimSpec> dim_map(const Op& op, const Shape& shape, Shape* out) {
  const size_t nd = shape.size();
  const auto& a = op.args;
  std::vector<DimSpec> m;
  if (op.name == "view" || op.name == "reshape") return view_groups(shape, a, out);
  if (op.name == "flatten") {
    int64_t s = a.size() > 0 ? norm_dim(a[0], nd, op.name) : 0,
            e = a.size() > 1 ? norm_dim(a[1], nd, op.name) : int64_t(nd) - 1;
    if (a.size() > 2) throw ViewError("flatten takes start_dim and end_dim");
    if (nd == 0) {
      *out = {1};
      return {DimSpec{}};
    }
    if (s > e) throw ViewError("flatten() has invalid args: start_dim cannot come after end_dim");
    Shape to;
    for (int64_t k = 0; k < s; ++k) to.push_back(shape[size_t(k)]);
    to.push_back(prod(shape, size_t(s), size_t(e) + 1));
    for (size_t k = size_t(e) + 1; k < nd; ++k) to.push_back(shape[k]);
    return view_groups(shape, to, out);
  }
  if (op.name == "unflatten") {
    if (a.size() < 2) throw ViewError("unflatten takes a dim and the sizes");
    int64_t d = norm_dim(a[0], nd, op.name);
    Shape sizes(a.begin() + 1, a.end());
    Shape filled = infer_size(shape[size_t(d)], sizes);
    Shape to(shape.begin(), shape.begin() + d);
    to.insert(to.end(), filled.begin(), filled.end());
    to.insert(to.end(), shape.begin() + d + 1, shape.end());
    return view_groups(shape, to, out);
  }
  if (op.name == "transpose" || op.name == "permute") {
    std::vector<int64_t> perm(nd);
    std::iota(perm.begin(), perm.end(), 0);
    if (op.name == "transpose") {
      if (a.size() != 2) throw ViewError("transpose takes two dims");
      std::swap(perm[size_t(norm_dim(a[0], nd, op.name))], perm[size_t(norm_dim(a[1], nd, op.name))]);
    } else {
      if (a.size() != nd)
        throw ViewError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            "ordering of dimensions i.e. input.dim() = " +
            std::to_string(nd) + " is not equal to len(dims) = " + std::to_string(a.size()));
      std::vector<bool> seen(nd, false);
      for (size_t k = 0; k < nd; ++k) {
        perm[k] = norm_dim(a[k], nd, op.name);
        if (seen[size_t(perm[k])]) throw ViewError("permute(): duplicate dims are not allowed.");
        seen[size_t(perm[k])] = true;
      }
    }
    out->clear();
    for (int64_t p : perm) {
      m.push_back(in_dim(p));
      out->push_back(shape[size_t(p)]);
    }
    return m;
  }
  if (op.name == "squeeze") {
    if (a.size() > 1) throw ViewError("squeeze takes at most one dim");
    int64_t only = a.empty() ? -1 : norm_dim(a[0], nd, op.name);
    out->clear();
    for (size_t k = 0; k < nd; ++k) {
      bool drop = shape[k] == 1 && (only < 0 || int64_t(k) == only);
      if (!drop) {
        m.push_back(in_dim(int64_t(k)));
        out->push_back(shape[k]);
      }
    }
    return m;
  }
  if (op.name == "unsqueeze") {
    if (a.size() != 1) throw ViewError("unsqueeze takes one dim");
    int64_t d = norm_dim(a[0], nd + 1, op.name);
    out->clear();
    for (size_t k = 0; k <= nd; ++k) {
      if (int64_t(k) == d) {
        m.push_back(DimSpec{});
        out->push_back(1);
      }
      if (k < nd) {
        m.push_back(in_dim(int64_t(k)));
        out->push_back(shape[k]);
      }
    }
    return m;
  }
  if (op.name == "expand") {
    if (a.size() < nd)
      throw ViewError("expand: the number of sizes provided (" + std::to_string(a.size()) +
                      ") must be greater or equal to the number of dimensions in the tensor (" + std::to_string(nd) +
                      ")");
    size_t lead = a.size() - nd;
    out->clear();
    for (size_t k = 0; k < a.size(); ++k) {
      if (k < lead) {
        if (a[k] < 0) throw ViewError("expand: -1 is not allowed in a leading, non-existing dimension");
        DimSpec s;
        s.kind = DimSpec::newdim;
        s.size = a[k];
        m.push_back(s);
        out->push_back(a[k]);
        continue;
      }
      int64_t in = shape[k - lead], want = a[k] == -1 ? in : a[k];
      if (want == in) {
        m.push_back(in_dim(int64_t(k - lead)));
      } else if (in == 1) {
        DimSpec s;
        s.kind = DimSpec::broadcast;
        s.inner = {in_dim(int64_t(k - lead))};
        s.size = want;
        m.push_back(s);
      } else {
        throw ViewError("The expanded size of the tensor (" + std::to_string(want) +
                        ") must match the existing size (" + std::to_string(in) + ") at non-singleton dimension " +
                        std::to_string(k));
      }
      out->push_back(want);
    }
    return m;
  }
  if (op.name == "repeat") {
    if (a.size() < nd)
      throw ViewError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    size_t lead = a.size() - nd;
    out->clear();
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] < 0) throw ViewError("Trying to create tensor with negative dimension " + std::to_string(a[k]));
      if (k < lead) {
        DimSpec s;
        s.kind = DimSpec::newdim;
        s.size = a[k];
        m.push_back(s);
        out->push_back(a[k]);
      } else if (a[k] == 1) {
        m.push_back(in_dim(int64_t(k - lead)));
        out->push_back(shape[k - lead]);
      } else {
        DimSpec s;
        s.kind = DimSpec::repeat;
        s.inner = {in_dim(int64_t(k - lead))};
        s.size = a[k];
        m.push_back(s);
        out->push_back(shape[k - lead] * a[k]);
      }
    }
    return m;
  }
  throw ViewError("unknown op '" + op.name +
                  "' (view, reshape, flatten, unflatten, transpose, permute, squeeze, unsqueeze, expand, repeat)");
}

namespace {

// Where input dim d went: the output dim, and how.
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

namespace {

// PyTorch 2.15's _ViewShardingPropagator (torch/distributed/tensor/_ops/_view_ops.py), step for
// step: an analysis pass over the output dims' rule that decides which input dims may stay sharded
// on which mesh dim (and raises where a strict view would need a redistribution), then a rewrite
// pass over the mesh dims that maps each surviving Shard/_StridedShard to its output dim.
class ViewPropagator {
 public:
  ViewPropagator(const std::vector<DimSpec>& rule, const Shape& shape, const Shape& mesh,
                 const std::vector<Placement>& in, bool strict)
      : rule_(rule), shape_(shape), mesh_(mesh), in_(in), strict_(strict) {}

  Propagation run() {
    Propagation r;
    std::vector<Placement> tgt = analyze();
    r.in_effective = tgt;
    for (size_t m = 0; m < in_.size(); ++m)
      if ((in_[m].kind == Placement::shard || in_[m].kind == Placement::strided) && tgt[m].kind == Placement::replicate)
        ++r.gathered;
    Shape local = shape_;
    for (size_t m = 0; m < tgt.size(); ++m) {
      const Placement& p = tgt[m];
      if (p.kind == Placement::shard)
        r.out.push_back(rewrite_plain(p, m, tgt, local));
      else if (p.kind == Placement::strided)
        r.out.push_back(rewrite_strided(p, m, tgt, local));
      else
        r.out.push_back(p);
    }
    return r;
  }

 private:
  const std::vector<DimSpec>& rule_;
  const Shape& shape_;
  const Shape& mesh_;
  const std::vector<Placement>& in_;
  bool strict_;
  std::map<int64_t, std::vector<bool>> allowed_;  // input dim -> per mesh dim: may stay sharded
  std::set<size_t> matched_strided_;              // mesh dims whose _StridedShard found its split
  std::set<std::pair<int64_t, size_t>> replicate_fallback_;
  std::map<int64_t, std::vector<int>> in_to_out_;  // input dim -> output dims
  std::set<std::pair<int64_t, int>> claimed_;      // (input dim, output dim) taken by a _StridedShard

  static bool sharded(const Placement& p) { return p.kind == Placement::shard || p.kind == Placement::strided; }

  static void walk(const DimSpec& s, std::set<int64_t>& seen) {
    if (s.kind == DimSpec::input) seen.insert(s.input_dim);
    for (const auto& i : s.inner) walk(i, seen);
  }

  std::vector<Placement> analyze() {
    std::set<int64_t> in_rule;
    for (const auto& c : rule_) walk(c, in_rule);
    for (int64_t d = 0; d < int64_t(shape_.size()); ++d)
      allowed_[d] = std::vector<bool>(mesh_.size(), in_rule.count(d) > 0);
    for (size_t o = 0; o < rule_.size(); ++o) {
      const DimSpec& c = rule_[o];
      std::vector<int64_t> dims = analyze_dim(c);
      if (c.kind == DimSpec::flatten) {
        for (int64_t d : dims) in_to_out_[d] = {int(o)};
      } else if (!dims.empty()) {
        in_to_out_[dims[0]].push_back(int(o));
      } else if (c.kind == DimSpec::split) {
        const DimSpec* root = &c.inner[0];
        while (root->kind == DimSpec::flatten || root->kind == DimSpec::split) root = &root->inner[0];
        if (root->kind == DimSpec::input && in_to_out_.count(root->input_dim))
          in_to_out_[root->input_dim].push_back(int(o));
      }
    }
    std::vector<Placement> tgt;
    for (size_t m = 0; m < in_.size(); ++m) {
      const Placement& p = in_[m];
      if (sharded(p) && !allowed_[p.dim][m]) {
        if (strict_ && !replicate_fallback_.count({p.dim, m}))
          throw ViewError("This operation would remove or reshape sharded dimension " + std::to_string(p.dim) +
                          ", which requires redistribution. Please redistribute the input first.");
        tgt.push_back(Placement{});
      } else {
        tgt.push_back(p);
      }
    }
    return tgt;
  }

  std::vector<int64_t> analyze_dim(const DimSpec& c) {
    switch (c.kind) {
      case DimSpec::input: return {c.input_dim};
      case DimSpec::flatten: return analyze_flatten(c);
      case DimSpec::split: return analyze_split(c);
      case DimSpec::repeat: {
        for (int64_t d : analyze_dim(c.inner[0])) allowed_[d] = std::vector<bool>(mesh_.size(), false);
        return {};
      }
      default: return {};
    }
  }

  // The first mesh dim holding a plain Shard of `d`.
  std::optional<size_t> plain_shard(int64_t d) const {
    for (size_t m = 0; m < in_.size(); ++m)
      if (in_[m].kind == Placement::shard && in_[m].dim == d) return m;
    return std::nullopt;
  }

  std::vector<int64_t> analyze_flatten(const DimSpec& c) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < c.inner.size(); ++i) {
      int64_t d = c.inner[i].input_dim;
      auto m = plain_shard(d);
      if (!m) continue;
      int64_t size = shape_[size_t(d)], msize = mesh_[*m];
      bool can = true;
      if (strict_) {
        if (i + 1 != c.inner.size() && size % msize != 0)
          throw ViewError("Cannot flatten unevenly sharded tensor: dimension " + std::to_string(d) + " (size " +
                          std::to_string(size) + ") is not evenly divisible by mesh dimension " + std::to_string(*m) +
                          " (size " + std::to_string(msize) +
                          "). Please redistribute the tensor before this operation.");
        out.push_back(d);
      } else if (i == 0) {
        out.push_back(d);
        if (size % msize != 0) can = false;
      } else {
        can = false;
      }
      allowed_[d] = std::vector<bool>(mesh_.size(), can);
    }
    if (!out.empty()) return out;
    return {c.inner[0].input_dim};
  }

  // prod(group[:split_id]) divided by the earlier mesh dims that shard the same input dim.
  std::optional<int64_t> expected_split_factor(const DimSpec& c, int64_t d, size_t mesh_dim,
                                               const std::vector<Placement>& pl) const {
    int64_t sf = prod(c.group, 0, size_t(c.split_id));
    for (size_t m = 0; m < mesh_dim; ++m)
      if (sharded(pl[m]) && pl[m].dim == d) {
        if (sf % mesh_[m] != 0) return std::nullopt;
        sf /= mesh_[m];
      }
    return sf;
  }

  std::optional<size_t> shard_for_split(int64_t d, const DimSpec& c) const {
    for (size_t m = 0; m < in_.size(); ++m) {
      const Placement& p = in_[m];
      if (!sharded(p) || p.dim != d || matched_strided_.count(m)) continue;
      if (p.kind == Placement::strided) {
        auto sf = expected_split_factor(c, d, m, in_);
        if (sf && *sf == p.split_factor) return m;
      } else {
        return m;
      }
    }
    return std::nullopt;
  }

  std::vector<int64_t> analyze_split(const DimSpec& c) {
    std::vector<int64_t> dims = analyze_dim(c.inner[0]);
    if (dims.empty()) return {};
    int64_t d = dims[0];
    if (c.inner[0].kind == DimSpec::flatten)
      for (size_t k = 1; k < c.inner[0].inner.size(); ++k) {
        int64_t fd = c.inner[0].inner[k].input_dim;
        for (size_t m = 0; m < in_.size(); ++m)
          if (in_[m].kind == Placement::shard && in_[m].dim == fd) {
            allowed_[fd][m] = false;
            replicate_fallback_.insert({fd, m});
          }
      }
    int64_t out_size = c.group[size_t(c.split_id)];
    auto sm = shard_for_split(d, c);
    if (c.split_id == 0) {
      std::vector<bool> a;
      for (int64_t msize : mesh_) a.push_back(out_size % msize == 0);
      allowed_[d] = a;
      auto pm = plain_shard(d);
      if (strict_ && pm && !allowed_[d][*pm])
        throw ViewError("Cannot unflatten unevenly sharded tensor: output dimension " + std::to_string(c.split_id) +
                        " (size " + std::to_string(out_size) + ") is not evenly divisible by mesh dimension " +
                        std::to_string(*pm) + " (size " + std::to_string(mesh_[*pm]) +
                        "). Please redistribute the tensor before this operation.");
    }
    if (sm && in_[*sm].kind == Placement::strided) {
      bool last = size_t(c.split_id) + 1 == c.group.size();
      if (strict_ && !last && out_size % mesh_[*sm] != 0)
        throw ViewError("Cannot unflatten unevenly sharded tensor: output dimension " + std::to_string(c.split_id) +
                        " (size " + std::to_string(out_size) + ") is not evenly divisible by mesh dimension " +
                        std::to_string(*sm) + " (size " + std::to_string(mesh_[*sm]) +
                        "). Please redistribute the tensor before this operation.");
      matched_strided_.insert(*sm);
      if (allowed_.count(d)) allowed_[d][*sm] = out_size % mesh_[*sm] == 0 || last;
    }
    return c.split_id == 0 ? std::vector<int64_t>{d} : std::vector<int64_t>{};
  }

  std::vector<int> unclaimed(int64_t d) const {
    std::vector<int> out;
    auto it = in_to_out_.find(d);
    if (it == in_to_out_.end()) return out;
    for (int o : it->second)
      if (!claimed_.count({d, o})) out.push_back(o);
    return out;
  }

  bool last_shard_in_flatten_range(size_t mesh_dim, const std::vector<Placement>& pl, int64_t start,
                                   int64_t end) const {
    int64_t d = pl[mesh_dim].dim;
    for (size_t m = mesh_dim + 1; m < pl.size(); ++m)
      if (sharded(pl[m]) && pl[m].dim >= start && pl[m].dim < end && pl[m].dim >= d) return false;
    return true;
  }

  Placement rewrite_plain(const Placement& p, size_t mesh_dim, const std::vector<Placement>& pl, Shape& local) {
    std::vector<int> dims = unclaimed(p.dim);
    if (dims.empty())
      throw ViewError("no output dim is left for " + to_string(p) + " on mesh dim " + std::to_string(mesh_dim));
    int tgt = dims[0];
    if (dims.size() > 1) {
      tgt = -1;
      for (int o : dims)
        if (rule_[size_t(o)].kind == DimSpec::split && rule_[size_t(o)].split_id == 0) {
          tgt = o;
          break;
        }
      if (tgt < 0) throw ViewError("no split_id 0 output among the dims of " + to_string(p));
    }
    const DimSpec& c = rule_[size_t(tgt)];
    int64_t m = mesh_[mesh_dim];
    if (c.kind == DimSpec::split || c.kind == DimSpec::input) {
      local[size_t(p.dim)] /= m;
      Placement o;
      o.kind = Placement::shard;
      o.dim = tgt;
      return o;
    }
    if (c.kind != DimSpec::flatten) throw ViewError("unexpected rule for " + to_string(p) + ": " + to_string(c));
    int64_t start = c.inner.front().input_dim, end = c.inner.back().input_dim + 1;
    Placement o;
    o.dim = tgt;
    if (p.dim == start) {
      o.kind = Placement::shard;
    } else {
      o.kind = Placement::strided;
      o.split_factor = prod(local, size_t(start), size_t(p.dim));
    }
    if (local[size_t(p.dim)] % m != 0 && !last_shard_in_flatten_range(mesh_dim, pl, start, end))
      throw ViewError("Cannot shard unevenly distributed tensor: dimension " + std::to_string(p.dim) + " (size " +
                      std::to_string(local[size_t(p.dim)]) + ") is not evenly divisible by mesh dimension " +
                      std::to_string(mesh_dim) + " (size " + std::to_string(m) +
                      "). Please redistribute the tensor before this operation.");
    local[size_t(p.dim)] /= m;
    return o;
  }

  std::optional<int> keep_strided_dim(const std::vector<int>& dims, const Placement& p, size_t mesh_dim) const {
    int64_t total = mesh_[mesh_dim] * p.split_factor, size = shape_[size_t(p.dim)];
    if (total == 0 || size % total != 0) return std::nullopt;
    int64_t shard_size = size / total;
    for (int o : dims) {
      const DimSpec& c = rule_[size_t(o)];
      if (c.kind != DimSpec::split) continue;
      int64_t inner = prod(c.group, size_t(c.split_id) + 1);
      int64_t trailing = 1;
      if (c.inner[0].kind == DimSpec::flatten) {
        bool found = false;
        for (const auto& fd : c.inner[0].inner) {
          if (fd.input_dim == p.dim)
            found = true;
          else if (found)
            trailing *= shape_[size_t(fd.input_dim)];
        }
      }
      int64_t flat = shard_size * trailing;
      if (flat >= inner && inner > 0 && flat % inner == 0) return o;
    }
    return std::nullopt;
  }

  Placement rewrite_strided(const Placement& p, size_t mesh_dim, const std::vector<Placement>& pl, Shape& local) {
    std::vector<int> dims = unclaimed(p.dim);
    for (int o : dims) {
      const DimSpec& c = rule_[size_t(o)];
      if (c.kind != DimSpec::split) continue;
      auto sf = expected_split_factor(c, p.dim, mesh_dim, pl);
      if (!sf || *sf != p.split_factor) continue;
      claimed_.insert({p.dim, o});
      local[size_t(p.dim)] /= mesh_[mesh_dim];
      Placement out;
      out.kind = Placement::shard;
      out.dim = o;
      return out;
    }
    auto keep = keep_strided_dim(dims, p, mesh_dim);
    int tgt;
    if (keep) {
      tgt = *keep;
    } else {
      if (strict_ &&
          std::any_of(dims.begin(), dims.end(), [&](int o) { return rule_[size_t(o)].kind == DimSpec::split; }))
        throw ViewError("Cannot unflatten tensor with _StridedShard placement: split_factor=" +
                        std::to_string(p.split_factor) + " does not match any output dimension.");
      if (dims.empty())
        throw ViewError("no output dim is left for " + to_string(p) + " on mesh dim " + std::to_string(mesh_dim));
      tgt = dims[0];
    }
    local[size_t(p.dim)] /= mesh_[mesh_dim];
    Placement out = p;
    out.dim = tgt;
    return out;
  }
};

// The local shape on the rank at mesh coordinate `coords` (torch.chunk sizes; a _StridedShard
// chunks each of its split_factor groups).
Shape local_shape_at(Shape cur, const Shape& mesh, const std::vector<Placement>& pl, const Shape& coords) {
  auto piece = [](int64_t n, int64_t parts, int64_t k) {  // torch.chunk's k-th piece of n
    int64_t cs = (n + parts - 1) / parts;
    return std::max<int64_t>(0, std::min((k + 1) * cs, n) - std::min(k * cs, n));
  };
  for (size_t i = 0; i < mesh.size() && i < pl.size(); ++i) {
    const Placement& p = pl[i];
    if (p.kind != Placement::shard && p.kind != Placement::strided) continue;
    int64_t& n = cur[size_t(p.dim)];
    const int64_t m = mesh[i], c = coords[i];
    if (p.kind == Placement::shard) {
      n = piece(n, m, c);
    } else {  // torch's _StridedShard: split_factor pieces, each chunked over the mesh dim
      const int64_t sf = std::max<int64_t>(1, p.split_factor);
      int64_t total = 0;
      for (int64_t k = 0; k < sf; ++k) total += piece(piece(n, sf, k), m, c);
      n = total;
    }
  }
  return cur;
}

// PyTorch registers view, _unsafe_view and squeeze as strict: a view that would need a
// redistribution raises. flatten and unflatten decompose to view; so does reshape (a composite
// op: aten.view for a viewable input, clone then aten._unsafe_view otherwise), so DTensor's
// non-strict aten.reshape registration is never what a reshape meets: torch 2.15.0 over four gloo
// ranks raises on reshape([6] S(0), (2, 3)) exactly as on view. transpose, permute, unsqueeze,
// expand and repeat redistribute silently.
bool strict_op(const std::string& name) {
  return name == "view" || name == "reshape" || name == "flatten" || name == "unflatten" || name == "squeeze";
}

}  // namespace

Propagation propagate(const Op& op, const Shape& shape, const Shape& mesh, const std::vector<Placement>& in) {
  if (mesh.empty() || mesh.size() > 2) throw ViewError("mesh must have 1 or 2 dims");
  if (in.size() != mesh.size())
    throw ViewError("placements: " + std::to_string(in.size()) + " given for a mesh of " + std::to_string(mesh.size()) +
                    " dims");
  for (int64_t m : mesh)
    if (m < 1 || m > 64) throw ViewError("mesh sizes must be between 1 and 64");
  for (const auto& p : in)
    if ((p.kind == Placement::shard || p.kind == Placement::strided) && (p.dim < 0 || size_t(p.dim) >= shape.size()))
      throw ViewError("placement " + to_string(p) + " names a dim the " + std::to_string(shape.size()) +
                      "-d input lacks");
  Shape out_shape;
  std::vector<DimSpec> specs = dim_map(op, shape, &out_shape);
  Propagation r = ViewPropagator(specs, shape, mesh, in, strict_op(op.name)).run();
  r.out_shape = out_shape;
  // Every rank views its shard to its own local target shape, the output's local shape at its mesh
  // coordinate; a rank whose shard holds another element count raises there, as PyTorch's local
  // view does. (Over a fake process group run as each rank in turn, PyTorch's sharding cache hands
  // every rank the first rank's target shape, so short last chunks seemed to raise; a process per
  // rank over gloo shows they do not, and the probe clears that cache between ranks.)
  // torch.flatten over a single dim returns its input without a view.
  bool one_dim_flatten = false;
  if (op.name == "flatten") {
    const int64_t nd = int64_t(shape.size());
    int64_t s0 = op.args.size() > 0 ? op.args[0] : 0, e0 = op.args.size() > 1 ? op.args[1] : nd - 1;
    if (s0 < 0) s0 += nd;
    if (e0 < 0) e0 += nd;
    one_dim_flatten = nd <= 1 || s0 == e0;
  }
  if ((op.name == "view" || op.name == "reshape" || op.name == "flatten" || op.name == "unflatten") &&
      !one_dim_flatten) {
    for (const Shape& c : all_coords(mesh)) {
      Shape lo = local_shape_at(out_shape, mesh, r.out, c);
      Shape li = local_shape_at(shape, mesh, r.in_effective, c);
      if (prod(li) != prod(lo))
        throw ViewError("shape '" + shape_str(lo) + "' is invalid for input of size " + std::to_string(prod(li)) +
                        " (on the rank at mesh coordinate " + shape_str(c) + ")");
    }
  }
  return r;
}

std::vector<Op> sweep_ops(const Shape& s) {
  const int64_t nd = int64_t(s.size());
  if (nd == 0) return {};
  const int64_t numel = prod(s);
  Shape expanded = {2};
  expanded.insert(expanded.end(), s.begin(), s.end());
  std::vector<Op> ops = {{"flatten", {}}, {"transpose", {0, nd - 1}},       {"unsqueeze", {nd}}, {"unsqueeze", {0}},
                         {"squeeze", {}}, {"repeat", Shape(size_t(nd), 2)}, {"expand", expanded}};
  // Every reshaping target both as view and as reshape (same rule, both strict in PyTorch): splits
  // into 2 and 3 leave uneven shards on meshes of 2, 3 and 4.
  std::vector<Shape> targets = {{numel}};
  if (numel % 2 == 0) targets.push_back({2, -1}), targets.push_back({-1, 2});
  if (numel % 3 == 0) targets.push_back({3, -1}), targets.push_back({-1, 3});
  if (nd >= 2) targets.push_back({s[0], -1});
  for (const auto& t : targets) ops.push_back({"view", t}), ops.push_back({"reshape", t});
  if (s[0] % 2 == 0) ops.push_back({"unflatten", {0, 2, s[0] / 2}});
  if (s[0] % 3 == 0) ops.push_back({"unflatten", {0, 3, s[0] / 3}});
  if (nd >= 2) {
    Shape perm;
    for (int64_t k = nd; k-- > 0;) perm.push_back(k);
    ops.push_back({"permute", perm});
    ops.push_back({"flatten", {0, 1}});
  }
  return ops;
}

std::vector<std::vector<Placement>> sweep_placements(const Shape& s, const Shape& mesh, bool strided) {
  std::vector<Placement> options = {Placement{Placement::replicate}, Placement{Placement::partial}};
  for (size_t d = 0; d < s.size(); ++d) options.push_back(Placement{Placement::shard, int(d)});
  if (strided && s.size() == 1 && s[0] % 2 == 0) options.push_back(Placement{Placement::strided, 0, 2});
  std::vector<std::vector<Placement>> combos;
  for (const auto& a : options) {
    if (mesh.size() == 1) {
      combos.push_back({a});
      continue;
    }
    for (const auto& b : options) combos.push_back({a, b});
  }
  return combos;
}

Tensor arange(const Shape& shape) {
  Tensor t;
  t.shape = shape;
  t.data.resize(size_t(prod(shape)));
  std::iota(t.data.begin(), t.data.end(), int64_t(0));
  return t;
}

namespace {

// Elements [b, e) along dim d.
Tensor narrow(const Tensor& t, size_t d, int64_t b, int64_t e) {
  Tensor o;
  o.shape = t.shape;
  o.shape[d] = std::max<int64_t>(0, e - b);
  int64_t outer = prod(t.shape, 0, d), len = t.shape[d], inner = prod(t.shape, d + 1);
  for (int64_t x = 0; x < outer; ++x)
    for (int64_t j = b; j < e; ++j)
      for (int64_t i = 0; i < inner; ++i) o.data.push_back(t.data[size_t((x * len + j) * inner + i)]);
  return o;
}

Tensor cat(const std::vector<Tensor>& parts, size_t d, const Shape& like) {
  Tensor o;
  o.shape = like;
  o.shape[d] = 0;
  for (const auto& p : parts) o.shape[d] += p.shape[d];
  int64_t outer = prod(like, 0, d), inner = prod(like, d + 1);
  for (int64_t x = 0; x < outer; ++x)
    for (const auto& p : parts) {
      int64_t len = p.shape[d];
      for (int64_t j = 0; j < len * inner; ++j) o.data.push_back(p.data[size_t(x * len * inner + j)]);
    }
  return o;
}

std::pair<int64_t, int64_t> chunk_range(int64_t n, int64_t m, int64_t c) {
  int64_t cs = ceil_div(n, m), b = std::min(n, c * cs), e = std::min(n, (c + 1) * cs);
  return {b, e};
}

}  // namespace

Tensor shard(const Tensor& t, const Shape& mesh, const std::vector<Placement>& pl, const Shape& coords) {
  Tensor cur = t;
  for (size_t i = 0; i < mesh.size(); ++i) {
    const Placement& p = pl[i];
    if (p.kind == Placement::partial) {
      if (coords[i] != 0) std::fill(cur.data.begin(), cur.data.end(), 0);
    } else if (p.kind == Placement::shard) {
      auto [b, e] = chunk_range(cur.shape[size_t(p.dim)], mesh[i], coords[i]);
      cur = narrow(cur, size_t(p.dim), b, e);
    } else if (p.kind == Placement::strided) {
      int64_t n = cur.shape[size_t(p.dim)], sf = p.split_factor;
      if (n % sf)
        throw ViewError("_StridedShard(" + std::to_string(p.dim) + ", " + std::to_string(sf) +
                        ") on a dim of local size " + std::to_string(n));
      int64_t g = n / sf;
      auto [b, e] = chunk_range(g, mesh[i], coords[i]);
      std::vector<Tensor> parts;
      for (int64_t k = 0; k < sf; ++k) parts.push_back(narrow(cur, size_t(p.dim), k * g + b, k * g + e));
      cur = cat(parts, size_t(p.dim), cur.shape);
    }
  }
  return cur;
}

StridedMap strided_map(const Op& op, const Shape& in, const Shape& target) {
  StridedMap m;
  Shape st = contiguous_strides(in);
  const auto& a = op.args;
  const size_t nd = in.size();
  if (op.name == "view" || op.name == "reshape" || op.name == "flatten" || op.name == "unflatten" ||
      op.name == "squeeze" || op.name == "unsqueeze") {
    if (prod(target) != prod(in))
      throw ViewError("shape '" + shape_str(target) + "' is invalid for input of size " + std::to_string(prod(in)));
    m.sizes = target;
    m.strides = contiguous_strides(target);
    m.mods.assign(target.size(), 0);
    return m;
  }
  if (op.name == "transpose" || op.name == "permute") {
    std::vector<int64_t> perm(nd);
    std::iota(perm.begin(), perm.end(), 0);
    if (op.name == "transpose")
      std::swap(perm[size_t(norm_dim(a.at(0), nd, op.name))], perm[size_t(norm_dim(a.at(1), nd, op.name))]);
    else
      for (size_t k = 0; k < nd; ++k) perm[k] = norm_dim(a.at(k), nd, op.name);
    for (int64_t p : perm) {
      m.sizes.push_back(in[size_t(p)]);
      m.strides.push_back(st[size_t(p)]);
      m.mods.push_back(0);
    }
    return m;
  }
  if (op.name == "expand") {
    if (target.size() < nd) throw ViewError("expand: fewer sizes than dims");
    size_t lead = target.size() - nd;
    for (size_t k = 0; k < target.size(); ++k) {
      m.sizes.push_back(target[k]);
      m.mods.push_back(0);
      if (k < lead) {
        m.strides.push_back(0);
      } else if (in[k - lead] == target[k]) {
        m.strides.push_back(st[k - lead]);
      } else if (in[k - lead] == 1) {
        m.strides.push_back(0);
      } else {
        throw ViewError("The expanded size of the tensor (" + std::to_string(target[k]) +
                        ") must match the existing size (" + std::to_string(in[k - lead]) +
                        ") at non-singleton dimension " + std::to_string(k));
      }
    }
    return m;
  }
  if (op.name == "repeat") {
    size_t lead = a.size() - nd;
    for (size_t k = 0; k < a.size(); ++k) {
      if (k < lead) {
        m.sizes.push_back(a[k]);
        m.strides.push_back(0);
        m.mods.push_back(0);
      } else {
        m.sizes.push_back(in[k - lead] * a[k]);
        m.strides.push_back(st[k - lead]);
        m.mods.push_back(in[k - lead]);
      }
    }
    return m;
  }
  throw ViewError("unknown op '" + op.name + "'");
}

Tensor apply(const StridedMap& m, const Tensor& in) {
  Tensor o;
  o.shape = m.sizes;
  int64_t n = prod(m.sizes);
  o.data.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, off = 0;
    for (size_t k = m.sizes.size(); k-- > 0;) {
      int64_t idx = rem % m.sizes[k];
      rem /= m.sizes[k];
      if (m.mods[k]) idx %= m.mods[k];
      off += idx * m.strides[k];
    }
    if (off < 0 || size_t(off) >= in.data.size()) throw ViewError("strided map reads outside the input");
    o.data[size_t(i)] = in.data[size_t(off)];
  }
  return o;
}

std::vector<Shape> all_coords(const Shape& mesh) {
  std::vector<Shape> out;
  Shape c(mesh.size(), 0);
  for (;;) {
    out.push_back(c);
    size_t k = mesh.size();
    while (k-- > 0) {
      if (++c[k] < mesh[k]) break;
      c[k] = 0;
    }
    if (k == SIZE_MAX) return out;
  }
}

Shape local_target(const Shape& global_out, const Shape& mesh, const std::vector<Placement>& out, const Shape& coords) {
  // The local shape of the global output: shard an index tensor of that shape and read its shape.
  Tensor probe;
  probe.shape = global_out;
  probe.data.assign(size_t(prod(global_out)), 0);
  return shard(probe, mesh, out, coords).shape;
}

LawResult check_law(const Op& op, const Shape& shape, const Shape& mesh, const std::vector<Placement>& in) {
  LawResult r;
  r.prop = propagate(op, shape, mesh, in);
  r.error = law_holds(op, shape, mesh, r.prop, &r.ranks);
  return r;
}

std::string law_holds(const Op& op, const Shape& shape, const Shape& mesh, const Propagation& prop, int* ranks) {
  int n = 0;
  Tensor x = arange(shape);
  Shape global_out;
  dim_map(op, shape, &global_out);
  Tensor y = apply(strided_map(op, shape, global_out), x);
  for (const Shape& c : all_coords(mesh)) {
    ++n;
    std::string rank = "rank " + shape_str(c);
    Tensor local_in = shard(x, mesh, prop.in_effective, c);
    Tensor want = shard(y, mesh, prop.out, c);
    Tensor got;
    try {
      got = apply(strided_map(op, local_in.shape, want.shape), local_in);
    } catch (const ViewError& e) {
      std::string err = rank + ": the local op fails on its shard " + shape_str(local_in.shape) + ": " + e.what();
      if (ranks) *ranks = n;
      return err;
    }
    if (got.shape != want.shape) {
      std::string err = rank + ": local result has shape " + shape_str(got.shape) + ", its shard of the global view " +
                        shape_str(want.shape);
      if (ranks) *ranks = n;
      return err;
    }
    for (size_t i = 0; i < got.data.size(); ++i)
      if (got.data[i] != want.data[i]) {
        std::string err = rank + ": local element " + std::to_string(i) + " is " + std::to_string(got.data[i]) +
                          ", the global view's shard has " + std::to_string(want.data[i]) + " (output placements " +
                          to_string(prop.out) + ")";
        if (ranks) *ranks = n;
        return err;
      }
  }
  if (ranks) *ranks = n;
  return "";
}

std::string gather(const std::vector<Tensor>& locals, const Shape& global_shape, const Shape& mesh,
                   const std::vector<Placement>& pl, Tensor* out) {
  Tensor idx = arange(global_shape);
  out->shape = global_shape;
  out->data.assign(idx.data.size(), 0);
  std::vector<bool> seen(idx.data.size(), false);
  auto coords = all_coords(mesh);
  if (coords.size() != locals.size()) return "expected " + std::to_string(coords.size()) + " local tensors";
  for (size_t r = 0; r < coords.size(); ++r) {
    bool holds = true;  // a Partial mesh dim: only coordinate 0 holds the value, others must be zero
    for (size_t i = 0; i < mesh.size(); ++i)
      if (pl[i].kind == Placement::partial && coords[r][i] != 0) holds = false;
    Tensor where = shard(idx, mesh, pl, coords[r]);
    if (where.data.size() != locals[r].data.size())
      return "rank " + shape_str(coords[r]) + " holds " + std::to_string(locals[r].data.size()) +
             " elements, its shard has " + std::to_string(where.data.size());
    for (size_t k = 0; k < where.data.size(); ++k) {
      int64_t v = locals[r].data[k];
      if (!holds) {
        if (v != 0) return "rank " + shape_str(coords[r]) + " holds a non-zero Partial contribution";
        continue;
      }
      size_t g = size_t(where.data[k]);
      if (seen[g] && out->data[g] != v) return "replicas disagree at global element " + std::to_string(g);
      out->data[g] = v;
      seen[g] = true;
    }
  }
  for (size_t g = 0; g < seen.size(); ++g)
    if (!seen[g]) return "no rank holds global element " + std::to_string(g);
  return "";
}

}  // namespace wc::dtv
