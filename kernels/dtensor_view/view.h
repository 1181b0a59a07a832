// DTensor view ops (PyTorch's torch/distributed/tensor/_ops/_view_ops.py; docs/DESIGN.md, "Kernel
// suites"): the output-dim model (view_groups and the dim maps of every view op), sharding
// propagation over 1-D and 2-D meshes with Shard, Replicate, Partial and _StridedShard, and the law
// checked on simulated ranks: for every rank, the op applied to its (possibly gathered) local shard
// equals that rank's shard of the globally viewed tensor (X = arange).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wc::dtv {

using Shape = std::vector<int64_t>;

struct Placement {
  enum Kind { shard, replicate, partial, strided } kind = replicate;
  int dim = 0;
  int64_t split_factor = 1;  // _StridedShard only
  bool operator==(const Placement& o) const {
    return kind == o.kind && (kind == replicate || kind == partial || dim == o.dim) &&
           (kind != strided || split_factor == o.split_factor);
  }
};
// "S(d)", "R", "P", "SS(d,sf)"; parse returns nothing on anything else.
std::string to_string(const Placement& p);
std::optional<Placement> parse_placement(const std::string& s);
std::string to_string(const std::vector<Placement>& ps);

// PyTorch raised (the message is PyTorch's reason, or the argument error).
class ViewError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An output dim in terms of the input (PyTorch's DimSpec).
struct DimSpec {
  enum Kind { input, flatten, split, singleton, broadcast, newdim, repeat } kind = singleton;
  int64_t input_dim = -1;      // input
  std::vector<DimSpec> inner;  // flatten: the dims; split/broadcast/repeat: one spec
  Shape group;                 // split: the group's output sizes
  int split_id = 0;            // split
  int64_t size = 1;            // broadcast/newdim: the size; repeat: the times
};
std::string to_string(const DimSpec& s);

struct Op {
  std::string name;           // view reshape flatten unflatten transpose permute squeeze unsqueeze expand repeat
  std::vector<int64_t> args;  // sizes, dims, times ...; unflatten: {dim, sizes...}
};

// The view ops the sweeps apply to an input of `shape` (the law sweep, and the differential test
// against PyTorch): every op the suite has: view and reshape to one dim and split in two and in
// three, flatten, unflatten, transpose, permute, (un)squeeze, expand, repeat.
std::vector<Op> sweep_ops(const Shape& shape);
// The input placements the sweeps try on `mesh` (1 or 2 dims): each of R, P and S(d) per dim of
// `shape` on every mesh dim (all pairs on a 2-D mesh); with `strided`, also SS(0,2) for an even 1-D
// shape.
std::vector<std::vector<Placement>> sweep_placements(const Shape& shape, const Shape& mesh, bool strided);

// The output dims of `op` on an input of `shape`, and the output shape; ViewError on bad arguments.
std::vector<DimSpec> dim_map(const Op& op, const Shape& shape, Shape* out_shape);
// PyTorch's view_groups(from, to) (to may hold one -1).
std::vector<DimSpec> view_groups(const Shape& from, const Shape& to, Shape* out_shape);

struct Propagation {
  Shape out_shape;
  std::vector<Placement> out;           // output placements, one per mesh dim
  std::vector<Placement> in_effective;  // input placements after the gathers (Replicate where gathered)
  int gathered = 0;                     // mesh dims all-gathered before the op
};
// ViewError where PyTorch raises (uneven unflatten, squeezing a sharded dim, mismatched split factor).
Propagation propagate(const Op& op, const Shape& shape, const Shape& mesh, const std::vector<Placement>& in);

// A dense int64 tensor (the law is checked on X = arange).
struct Tensor {
  Shape shape;
  std::vector<int64_t> data;
};
Tensor arange(const Shape& shape);
// The local shard of `t` on the rank at mesh `coords` (placements applied mesh dim by mesh dim;
// Shard chunks as torch.chunk; Partial: the rank at coordinate 0 holds the value, others zeros).
Tensor shard(const Tensor& t, const Shape& mesh, const std::vector<Placement>& pl, const Shape& coords);

// How an op reads a contiguous input: out[i] = in[sum_k idx_k(i) % mod_k * stride_k] (mod 0 = none).
struct StridedMap {
  Shape sizes, strides, mods;
};
// The map of `op` applied to a contiguous input of `in_shape`; `target` is the output shape for the
// size-taking ops (view, reshape, unflatten, expand), already localised by the caller.
StridedMap strided_map(const Op& op, const Shape& in_shape, const Shape& target);
Tensor apply(const StridedMap& m, const Tensor& in);

struct LawResult {
  Propagation prop;
  std::string error;  // "" when the law holds on every rank
  int ranks = 0;
};
// Propagates, then checks the law on every rank on the CPU.
LawResult check_law(const Op& op, const Shape& shape, const Shape& mesh, const std::vector<Placement>& in);
// The law for a given propagation (so a wrong one can be shown to fail); "" or the first rank that breaks it.
std::string law_holds(const Op& op, const Shape& shape, const Shape& mesh, const Propagation& prop,
                      int* ranks = nullptr);
// The output shape each rank's local op must produce (the local shape of the global output).
Shape local_target(const Shape& global_out, const Shape& mesh, const std::vector<Placement>& out, const Shape& coords);
// All mesh coordinates, row-major.
std::vector<Shape> all_coords(const Shape& mesh);
// Reassembles the global tensor from every rank's local output; "" or what disagreed.
std::string gather(const std::vector<Tensor>& locals, const Shape& global_shape, const Shape& mesh,
                   const std::vector<Placement>& pl, Tensor* out);

// CUDA: each rank's local view materialised by the strided-copy kernel into its own device buffer.
// nullopt + why without a device; throws on a device error.
std::optional<std::vector<Tensor>> device_local_views(const std::vector<Tensor>& locals,
                                                      const std::vector<StridedMap>& maps, std::string* why);
bool cuda_built();
// Benchmark: the strided copy of a transpose of `bytes` of int64 on the device, GB/s and the peak.
double device_strided_copy_rate(int64_t bytes, double* peak, std::string* why);

}  // namespace wc::dtv
