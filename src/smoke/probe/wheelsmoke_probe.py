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
   "locals": true, "backend": "gloo" | "fake"}
     -> the output placements or the exception (raised on any rank), and (unless "locals" is
        false) each rank's local output and "full", the output gathered by full_tensor(). "gloo"
        (the default): one process per rank, kept for the probe's life per world size, real
        collectives, every input placement carrying real data (Partial as a sum). "fake": one
        process as each rank in turn over a fake group, for sweeps of thousands of cases
        (placements; see dtensor_fake). tools/dtensor_oracle.py runs the fake one.
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


def dtensor_fake(torch, req):
    """A view op on real DTensors over a fake process group, one process as each rank in turn
    (thousands of cases in seconds; placements): the output placements or the exception, and each
    rank's local output. PyTorch's sharding cache is keyed by the op, not the rank, so ranks after
    the first get its local target shapes: a local view that raises only on a later rank is that
    cache, not PyTorch's behaviour over real ranks (a process per rank, dtensor()), and is not
    reported; that rank's local output is left out. Local inputs are sliced from X = arange by
    torch's own local shape and offset, so their data is real for Shard and Replicate inputs;
    collectives are no-ops, so local data is only meaningful where no redistribution happened."""
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
            except Exception as e:
                if rank > 0 and out["out"] is not None:  # the cache's shapes on a later rank (see above)
                    out["skipped_ranks"] = out.get("skipped_ranks", 0) + 1
                    continue
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


# --- one process per rank (gloo) ------------------------------------------------------------------
_POOLS = {}  # world size -> (processes, request queues, answer queue)


def _input_dtensor(torch, x, mesh, pls):
    """The global X = arange placed on the mesh with real data on every rank: distribute_tensor for
    Shard/_StridedShard/Replicate; a Partial mesh dim holds the data on its coordinate 0 and zeros
    elsewhere, so the sum over it is X."""
    from torch.distributed.tensor import DTensor, Partial, Replicate, distribute_tensor
    if not any(isinstance(p, Partial) for p in pls):
        return distribute_tensor(x, mesh, pls)
    plain = [Replicate() if isinstance(p, Partial) else p for p in pls]
    local = distribute_tensor(x, mesh, plain).to_local()
    coords = mesh.get_coordinate()
    if any(isinstance(p, Partial) and coords[i] != 0 for i, p in enumerate(pls)):
        local = torch.zeros_like(local)
    return DTensor.from_local(local, mesh, pls, run_check=False, shape=x.shape, stride=x.stride())


def _rank_case(torch, req, rank):
    import math
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    shape, mesh_shape = tuple(req["shape"]), tuple(req["mesh"])
    mesh = init_device_mesh("cpu", mesh_shape)
    x = torch.arange(math.prod(shape), dtype=torch.int64).reshape(shape)
    error = None
    try:
        d = _input_dtensor(torch, x, mesh, [_placement(p) for p in req["in"]])
        y = _view(d, req["view_op"], req["args"])
    except Exception as e:  # the op refused, on every rank or only on some
        msg = str(e).strip().splitlines()
        error = "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])
    # Every rank learns whether any refused before a collective that a refusing rank would never
    # join: the ranks stay in step for the next case.
    refused = torch.tensor([1 if error else 0], dtype=torch.int64)
    dist.all_reduce(refused)
    if refused.item():
        return {"error": error, "coords": list(mesh.get_coordinate())}
    loc = y.to_local().contiguous()
    full = y.full_tensor()  # a real all-gather / reduction over the ranks
    return {"out": [_placement_name(p) for p in y.placements], "coords": list(mesh.get_coordinate()),
            "shape": list(loc.shape), "data": raw(loc), "full": raw(full) if rank == 0 else None}


def _die_with_parent():
    """A rank never outlives the probe (killed by wheelsmoke at a case timeout, or gone)."""
    import ctypes, signal
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except Exception:
        pass


def _rank_main(rank, world, init_file, inq, outq):
    import os
    _die_with_parent()
    os.dup2(2, 1)  # the parent's stdout is the protocol: nothing from a rank may reach it
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    while True:
        req = inq.get()
        if req is None:
            break
        try:
            outq.put((rank, _rank_case(torch, req, rank)))
        except Exception as e:
            msg = str(e).strip().splitlines()
            outq.put((rank, {"fatal": "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])}))
    dist.destroy_process_group()


def _pool(world):
    import multiprocessing, os, tempfile
    if world in _POOLS:
        return _POOLS[world]
    ctx = multiprocessing.get_context("spawn")
    init_file = os.path.join(tempfile.mkdtemp(prefix="wheelsmoke-gloo-"), "store")
    inqs = [ctx.Queue() for _ in range(world)]
    outq = ctx.Queue()
    procs = [ctx.Process(target=_rank_main, args=(r, world, init_file, inqs[r], outq), daemon=True)
             for r in range(world)]
    for p in procs:
        p.start()
    _POOLS[world] = (procs, inqs, outq)
    return _POOLS[world]


def _drop_pool(world):
    procs, inqs, _ = _POOLS.pop(world)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(5)


def _close_pools():
    """At the end of the requests: each rank leaves its group, then is stopped if it lingers."""
    for world in list(_POOLS):
        procs, inqs, _ = _POOLS[world]
        for q in inqs:
            q.put(None)
        for p in procs:
            p.join(10)
        _drop_pool(world)


def dtensor(torch, req):
    import math, queue
    world = math.prod(req["mesh"])
    procs, inqs, outq = _pool(world)
    for q in inqs:
        q.put(req)
    answers = {}
    try:
        while len(answers) < world:
            rank, a = outq.get(timeout=float(req.get("rank_timeout", 120)))
            answers[rank] = a
    except queue.Empty:
        dead = [r for r, p in enumerate(procs) if not p.is_alive()]
        _drop_pool(world)
        raise RuntimeError("ranks %s did not answer (%s)" % (sorted(set(range(world)) - set(answers)),
                                                               "dead: %s" % dead if dead else "a collective hung"))
    fatal = [a["fatal"] for a in answers.values() if "fatal" in a]
    if fatal:
        _drop_pool(world)  # a rank failed outside the view op: the group may be out of step
        raise RuntimeError("a rank failed: " + fatal[0])
    first = answers[0]
    refusing = [r for r in range(world) if answers[r].get("error")]
    error = None
    if refusing:  # the first refusing rank's exception, and where it was raised
        error = "%s (on the rank at mesh coordinate %s)" % (answers[refusing[0]]["error"],
                                                            answers[refusing[0]]["coords"])
    out = {"ok": True, "backend": "gloo", "out": None if error else first.get("out"), "error": error,
           "locals": [], "data_valid": True, "full": None if error else first.get("full")}
    if error is None and req.get("locals", True):
        out["locals"] = [{"coords": answers[r]["coords"], "shape": answers[r]["shape"], "data": answers[r]["data"]}
                         for r in range(world)]
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
                ans = dtensor(torch, req) if req.get("backend", "gloo") == "gloo" else dtensor_fake(torch, req)
            else:
                ans = {"ok": False, "error_type": "ProtocolError", "message": "unknown op %r" % (op,)}
        except Exception as e:
            msg = str(e).strip().splitlines()
            ans = {"ok": False, "error_type": type(e).__name__, "message": (msg[0] if msg else "")[:500],
                   "where": traceback.format_exc().strip().splitlines()[-3:] if isinstance(e, AssertionError) else []}
        ans["id"] = rid
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()
    _close_pools()


if __name__ == "__main__":
    main()
