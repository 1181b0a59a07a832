"""wheelsmoke's probe: runs under the interpreter of the artifact being tested and only calls its
PyTorch. wheelsmoke writes one JSON request per line on stdin; the probe answers each with one
JSON line on stdout and judges nothing (every comparison happens in wheelsmoke, against its CPU
references). Requests:
  {"op": "hello"} -> torch version, torch.version.cuda, device, interpreter
  {"op": "pad", "dtype": "f32", "shape": [..], "data": base64 of the input's little-endian bytes,
   "producer": "copy" | "twice", "pad": [..], "fill": number or "nan"/"inf"/"-inf",
   "compile": false | true, "device": "cpu" | "cuda"}
     -> the padded output (and, compiled, the producer's output a second consumer reads)
  {"op": "dtensor", "shape", "mesh", "in": ["S(0)", "R", ...], "view_op": "view", "args": [...],
   "locals": true}
     -> the output placements or the exception, and (unless "locals" is false) each rank's local
        output; tools/dtensor_oracle.py runs the same function
Every answer has "ok"; a Python exception is {"ok": false, "error_type", "message"}."""
import base64, json, sys, traceback

DTYPES = {}


def dtypes(torch):
    if not DTYPES:
        DTYPES.update({n: getattr(torch, n) for n in ("float32", "float16", "bfloat16", "int32", "int64")})
    return DTYPES


def raw(t):
    t = t.detach().contiguous().cpu()
    b = t.view(-1).view(__import__("torch").uint8)
    try:
        return base64.b64encode(b.numpy().tobytes()).decode()
    except Exception:  # no numpy in the artifact's environment
        return base64.b64encode(bytes(b.tolist())).decode()


def tensor_answer(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "strides": list(t.stride()),
            "data": raw(t)}


_compiled = {}


def pad(torch, req):
    import torch.nn.functional as F
    dt = dtypes(torch)[req["dtype"]]  # wheelsmoke's names are torch's: float32, bfloat16, int64
    data = base64.b64decode(req["data"])
    x = torch.frombuffer(bytearray(data), dtype=dt).reshape(req["shape"]) if data else \
        torch.empty(req["shape"], dtype=dt)
    device = req.get("device", "cpu")
    x = x.to(device)
    fill = req["fill"]
    if isinstance(fill, str):
        fill = float(fill)
    pads = list(req["pad"])
    twice = req.get("producer") == "twice"

    def fn(x):
        y = x + x if twice else x.clone()
        return torch.nn.functional.pad(y, pads, mode="constant", value=fill), y

    if req.get("compile"):
        key = (tuple(pads), fill if fill == fill else "nan", twice, str(dt), device)
        f = _compiled.get(key)
        if f is None:
            f = _compiled[key] = torch.compile(fn, dynamic=False)
        out, y = f(x)
    else:
        out, y = fn(x)
    ans = {"ok": True, "out": tensor_answer(out)}
    if req.get("compile"):
        ans["producer"] = tensor_answer(y)
    return ans


def _placement(s):
    import re
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.placement_types import _StridedShard
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
    raise ValueError("placement %r" % s)


def _placement_name(p):
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.placement_types import _StridedShard
    if isinstance(p, _StridedShard):
        return "SS(%d,%d)" % (p.dim, p.split_factor)
    if isinstance(p, Shard):
        return "S(%d)" % p.dim
    if isinstance(p, Replicate):
        return "R"
    if isinstance(p, Partial):
        return "P"
    return repr(p)


def _view(t, op, args):
    if op in ("view", "reshape", "permute", "repeat", "expand"):
        return getattr(t, op)(*args)
    if op == "flatten":
        return t.flatten(*args)
    if op == "unflatten":
        return t.unflatten(args[0], tuple(args[1:]))
    if op == "transpose":
        return t.transpose(*args)
    if op == "squeeze":
        return t.squeeze(*args) if args else t.squeeze()
    if op == "unsqueeze":
        return t.unsqueeze(*args)
    raise ValueError("op %r" % op)


def dtensor(torch, req):
    """A view op on real DTensors over a fake process group, rank by rank (the fake backend lets
    one process be each rank in turn): the output placements or the exception, and each rank's
    local output. Local inputs are sliced from X = arange by torch's own local shape and offset, so
    their data is real for Shard and Replicate inputs; collectives are no-ops under the fake
    backend, so local data is only meaningful where no redistribution happened."""
    import math
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Replicate, Shard
    from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    from torch.testing._internal.distributed.fake_pg import FakeStore
    shape, mesh_shape = tuple(req["shape"]), tuple(req["mesh"])
    world = math.prod(mesh_shape)
    pls = [_placement(p) for p in req["in"]]
    x = torch.arange(math.prod(shape), dtype=torch.int64).reshape(shape)
    real = all(type(p) in (Shard, Replicate) for p in pls)
    out = {"ok": True, "out": None, "error": None, "locals": [], "data_valid": real}
    for rank in range(world):
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
        try:
            mesh = init_device_mesh("cpu", mesh_shape)
            local_shape, offset = compute_local_shape_and_global_offset(shape, mesh, pls)
            if real:
                local = x[tuple(slice(o, o + n) for o, n in zip(offset, local_shape))].contiguous()
            else:
                local = torch.zeros(local_shape, dtype=torch.int64)
            d = DTensor.from_local(local, mesh, pls, run_check=False, shape=torch.Size(shape), stride=x.stride())
            try:
                y = _view(d, req["view_op"], req["args"])
            except Exception as e:  # the op refused: the same on every rank
                msg = str(e).strip().splitlines()
                out["error"] = "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])
                break
            if rank == 0:
                out["out"] = [_placement_name(p) for p in y.placements]
            if req.get("locals", True):
                loc = y.to_local().contiguous()
                out["locals"].append({"coords": list(mesh.get_coordinate()), "shape": list(loc.shape),
                                      "data": raw(loc)})
        finally:
            dist.destroy_process_group()
    return out


def hello(torch):
    cuda = torch.version.cuda
    device = "cpu"
    if torch.cuda.is_available():
        device = "cuda:" + torch.cuda.get_device_name(0)
    return {"ok": True, "torch": torch.__version__, "cuda": cuda, "device": device, "python": sys.executable}


def main():
    torch = None
    import_error = None
    try:
        import torch  # noqa: F811
    except Exception as e:  # reported on hello: the interpreter has no usable torch
        import_error = e
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError:
            print(json.dumps({"ok": False, "error_type": "ProtocolError", "message": "not JSON"}), flush=True)
            continue
        rid = req.get("id")
        try:
            if import_error is not None:
                raise import_error
            op = req.get("op")
            if op == "hello":
                ans = hello(torch)
            elif op == "pad":
                ans = pad(torch, req)
            elif op == "dtensor":
                ans = dtensor(torch, req)
            else:
                ans = {"ok": False, "error_type": "ProtocolError", "message": "unknown op %r" % (op,)}
        except Exception as e:
            msg = str(e).strip().splitlines()
            ans = {"ok": False, "error_type": type(e).__name__, "message": (msg[0] if msg else "")[:500],
                   "where": traceback.format_exc().strip().splitlines()[-3:] if isinstance(e, AssertionError) else []}
        ans["id"] = rid
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
