#!/usr/bin/env python3
"""PyTorch as the oracle for the dtensor_view model: reads cases (one JSON object per line:
{"shape": [...], "mesh": [...], "in": ["S(0)", "SS(0,2)", "R", "P"], "op": "view", "args": [...]}) and
prints, per line, {"out": [...placements...]} or {"error": "<exception type>: <message>"}, from
real DTensors on a device mesh over a fake process group, run as each rank in turn (an op that
raises on any rank raises).

  PY tools/dtensor_oracle.py < cases.jsonl

Needs torch (CPU is enough). The torch version is printed first: {"torch": "2.15.0"}."""
import json, math, re, sys, warnings

warnings.filterwarnings("ignore")
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor.placement_types import _StridedShard
from torch.testing._internal.distributed.fake_pg import FakeStore


def placement(s):
    if s == "R":
        return Replicate()
    if s == "P":
        return Partial()
    m = re.fullmatch(r"S\((\d+)\)", s)
    if m:
        return Shard(int(m.group(1)))
    m = re.fullmatch(r"SS\((\d+),(\d+)\)", s)
    if m:
        return _StridedShard(int(m.group(1)), split_factor=int(m.group(2)))
    raise ValueError(s)


def name(p):
    if isinstance(p, _StridedShard):
        return f"SS({p.dim},{p.split_factor})"
    if isinstance(p, Shard):
        return f"S({p.dim})"
    if isinstance(p, Replicate):
        return "R"
    if isinstance(p, Partial):
        return "P"
    return repr(p)


def apply(t, op, args):
    if op in ("view", "reshape"):
        return getattr(t, op)(*args)
    if op == "flatten":
        return t.flatten(*args)
    if op == "unflatten":
        return t.unflatten(args[0], tuple(args[1:]))
    if op == "transpose":
        return t.transpose(*args)
    if op == "permute":
        return t.permute(*args)
    if op == "squeeze":
        return t.squeeze(*args) if args else t.squeeze()
    if op == "unsqueeze":
        return t.unsqueeze(*args)
    if op == "expand":
        return t.expand(*args)
    if op == "repeat":
        return t.repeat(*args)
    raise ValueError(op)


def run_case(c):
    """The case on every rank of a fake process group in turn (the fake backend lets one process
    be each rank): the output placements, or the first exception any rank raises."""
    shape, mesh_shape = tuple(c["shape"]), tuple(c["mesh"])
    world = math.prod(mesh_shape)
    pls = [placement(p) for p in c["in"]]
    x = torch.arange(math.prod(shape), dtype=torch.int64).reshape(shape)
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    out = None
    for rank in range(world):
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
        try:
            mesh = init_device_mesh("cpu", mesh_shape)
            local_shape, offset = compute_local_shape_and_global_offset(shape, mesh, pls)
            real = all(type(p) in (Shard, Replicate) for p in pls)
            local = x[tuple(slice(o, o + n) for o, n in zip(offset, local_shape))].contiguous() if real else \
                torch.zeros(local_shape, dtype=torch.int64)
            d = DTensor.from_local(local, mesh, pls, run_check=False, shape=torch.Size(shape), stride=x.stride())
            y = apply(d, c["op"], c["args"])
            if out is None:
                out = {"out": [name(p) for p in y.placements], "shape": list(y.shape)}
        finally:
            dist.destroy_process_group()
    return out


def main():
    print(json.dumps({"torch": torch.__version__.split("+")[0]}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        c = json.loads(line)
        try:
            print(json.dumps(run_case(c)), flush=True)
        except Exception as e:  # the model must raise where PyTorch does, on any rank
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
            print(json.dumps({"error": f"{type(e).__name__}: {msg[:300]}"}), flush=True)
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()


if __name__ == "__main__":
    main()
