#include "dtensor_view/view.h"

#include "util/parse.h"

#include <algorithm>
#include <limits>
#include <numeric>

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
      for (int64_t d : from_group)
        if (from[size_t(d)] != 1) dims.push_back(in_dim(d));
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
struct Found {
  enum Role { none, direct, flatten_pos, split_plain, split_flat, broadcast, repeat } role = none;
  int out = -1;
  size_t pos = 0;                  // position inside the flatten
  std::vector<int64_t> flat_dims;  // the flatten's input dims
  std::vector<int> split_outs;     // the output dims of the split group, in split_id order
  Shape group;
};

Found locate(const std::vector<DimSpec>& specs, int64_t d) {
  Found f;
  for (size_t o = 0; o < specs.size(); ++o) {
    const DimSpec& s = specs[o];
    auto flat_pos = [&](const DimSpec& fl, size_t* pos, std::vector<int64_t>* dims) {
      for (size_t k = 0; k < fl.inner.size(); ++k) {
        dims->push_back(fl.inner[k].input_dim);
        if (fl.inner[k].input_dim == d) *pos = k;
      }
      return std::find(dims->begin(), dims->end(), d) != dims->end();
    };
    if (s.kind == DimSpec::input && s.input_dim == d) {
      f.role = Found::direct;
      f.out = int(o);
      return f;
    }
    if (s.kind == DimSpec::flatten) {
      std::vector<int64_t> dims;
      size_t pos = 0;
      if (flat_pos(s, &pos, &dims)) {
        f.role = Found::flatten_pos, f.out = int(o), f.pos = pos, f.flat_dims = dims;
        return f;
      }
    }
    if ((s.kind == DimSpec::broadcast || s.kind == DimSpec::repeat) && s.inner[0].kind == DimSpec::input &&
        s.inner[0].input_dim == d) {
      f.role = s.kind == DimSpec::broadcast ? Found::broadcast : Found::repeat;
      f.out = int(o);
      return f;
    }
    if (s.kind == DimSpec::split) {
      const DimSpec& in = s.inner[0];
      bool hit = false;
      std::vector<int64_t> dims;
      size_t pos = 0;
      if (in.kind == DimSpec::input && in.input_dim == d) {
        hit = true;
        f.role = Found::split_plain;
      } else if (in.kind == DimSpec::flatten && flat_pos(in, &pos, &dims)) {
        hit = true;
        f.role = Found::split_flat, f.pos = pos, f.flat_dims = dims;
      }
      if (hit) {
        f.group = s.group;
        f.split_outs.assign(s.group.size(), -1);
        for (size_t o2 = o; o2 < specs.size(); ++o2)  // the group's members follow one another
          if (specs[o2].kind == DimSpec::split && to_string(specs[o2].inner[0]) == to_string(in) &&
              specs[o2].group == s.group)
            f.split_outs[size_t(specs[o2].split_id)] = int(o2);
        f.out = f.split_outs[0];
        return f;
      }
    }
  }
  return f;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

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
  Propagation r;
  std::vector<DimSpec> specs = dim_map(op, shape, &r.out_shape);
  Shape cur = shape;  // rank 0's local sizes after the mesh dims handled so far
  for (size_t i = 0; i < mesh.size(); ++i) {
    const Placement& p = in[i];
    const int64_t m = mesh[i];
    Placement o = p, eff = p;
    if (p.kind == Placement::shard || p.kind == Placement::strided) {
      const int64_t d = p.dim;
      Found f = locate(specs, d);
      const bool strided = p.kind == Placement::strided;
      const int64_t local = cur[size_t(d)];
      bool keep = false;
      switch (f.role) {
        case Found::none:
          throw ViewError("Cannot squeeze or drop dim " + std::to_string(d) + ": it is sharded (" + to_string(p) + ")");
        case Found::direct:
          keep = true;
          o.dim = f.out;
          break;
        case Found::flatten_pos: {
          int64_t before = 1;
          for (size_t k = 0; k < f.pos; ++k) before *= cur[size_t(f.flat_dims[k])];
          int64_t sf = strided ? p.split_factor * before : before;
          bool even = strided ? local % p.split_factor == 0 && (local / p.split_factor) % m == 0 : local % m == 0;
          int64_t after = 1;
          for (size_t k = f.pos + 1; k < f.flat_dims.size(); ++k) after *= cur[size_t(f.flat_dims[k])];
          if (even || (sf == 1 && after == 1)) {
            keep = true;
            o.dim = f.out;
            o.kind = sf == 1 ? Placement::shard : Placement::strided;
            o.split_factor = sf;
          }
          break;
        }
        case Found::split_plain: {
          if (!strided) {
            if (local % m)
              throw ViewError("Cannot unflatten unevenly sharded tensor: dim " + std::to_string(d) + " of local size " +
                              std::to_string(local) + " over a mesh dim of " + std::to_string(m));
            int64_t first_local = local / std::max<int64_t>(1, prod(f.group, 1));
            if (first_local % m == 0) {
              keep = true;
              o.dim = f.split_outs[0];
            }
          } else {
            int64_t acc = 1;
            bool matched = false;
            for (size_t j = 0; j < f.group.size(); ++j) {
              if (acc == p.split_factor && f.group[j] % m == 0 && f.split_outs[j] >= 0) {
                keep = matched = true;
                o.kind = Placement::shard;
                o.dim = f.split_outs[j];
                break;
              }
              acc *= f.group[j];
            }
            if (!matched)
              throw ViewError("_StridedShard split factor " + std::to_string(p.split_factor) +
                              " does not match the unflattened sizes " + shape_str(f.group));
          }
          break;
        }
        case Found::split_flat: {
          if (!strided && f.pos == 0 && local % m == 0) {
            int64_t first = f.group[0];
            // the first output dim's rank-0 size after earlier mesh dims: the group's share of `local`
            int64_t rest = prod(f.group, 1), flat_local = local;
            for (size_t k = 1; k < f.flat_dims.size(); ++k) flat_local *= cur[size_t(f.flat_dims[k])];
            if (flat_local % rest == 0 && (flat_local / rest) % m == 0 && first > 0) {
              keep = true;
              o.dim = f.split_outs[0];
            }
          }
          break;
        }
        case Found::broadcast:
        case Found::repeat: break;
      }
      if (keep) {
        cur[size_t(d)] = strided ? p.split_factor * ceil_div(local / p.split_factor, m) : ceil_div(local, m);
      } else {
        o = Placement{};
        eff = Placement{};
        ++r.gathered;
      }
    }
    r.out.push_back(o);
    r.in_effective.push_back(eff);
  }
  return r;
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
