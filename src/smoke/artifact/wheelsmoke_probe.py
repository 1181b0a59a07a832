"""wheelsmoke's probe: runs under the interpreter of the artifact being tested and only calls its
PyTorch. wheelsmoke writes one JSON request per line on stdin; the probe answers each with one
JSON line on stdout and judges nothing (every comparison happens in wheelsmoke, against its CPU
references). Requests:
  {"op": "hello"} -> torch version, torch.version.cuda, device, interpreter, and with a usable GPU
     "cuda_device": name, capability, count, SMs and max threads per SM
  {"op": "pad", "dtype": "f32", "shape": [..], "data": base64 of the input's little-endian bytes,
   "producer": "copy" | "twice", "pad": [..], "fill": number or "nan"/"inf"/"-inf",
   "compile": false | true, "device": "cpu" | "cuda"}
     -> the padded output (and, compiled, the producer's output a second consumer reads)
  {"op": "pad_timing", "dtype", "shape", "pad", "fill", "device", "iters", "warmup"}
     -> "eager_ms" and "compiled_ms" (medians) and "bytes_moved", for wheelsmoke bench --python
  {"op": "rng_graph", "check": "replays" | "two_streams" | "graphsafe_state", "seed", "numel",
   "replays", "order"} (CUDA only)
     -> the outputs of CUDA graphs captured with per-capture generators, the generators' offsets
        around each replay, and the same work run eagerly from the same states (see rng_*)
  {"op": "dtensor", "shape", "mesh", "in": ["S(0)", "R", ...], "view_op": "view", "args": [...],
   "locals": true, "backend": "gloo" | "nccl" | "fake"}
     -> the output placements or the exception (raised on any rank), and (unless "locals" is
        false) each rank's local output and "full", the output gathered by full_tensor(). "gloo"
        (the default): one process per rank, kept for the probe's life per world size, real
        collectives, every input placement carrying real data (Partial as a sum); "nccl": the
        same with each rank on its own GPU (NCCL refuses two ranks on one device). "fake": one
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
        return F.pad(y, pads, mode="constant", value=fill), y

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


def pad_timing(torch, req):
    """Eager F.pad against its torch.compile'd pattern (a producer feeding the pad and a second
    consumer, as the pad_concat suite's compiled cases) on req's device: the median of `iters` timed
    runs after `warmup` untimed ones (compilation included there), by CUDA events on a GPU and
    perf_counter on the CPU. Times only; the suite judges the values."""
    import time
    dt = dtypes(torch)[req["dtype"]]
    device = req.get("device", "cpu")
    x = torch.ones(req["shape"], dtype=dt, device=device)
    pads, fill = list(req["pad"]), req.get("fill", 0)

    def fn(x):
        y = x + x
        return torch.nn.functional.pad(y, pads, mode="constant", value=fill), y

    ans = {"ok": True, "device": device}
    cuda = device.startswith("cuda")
    for name, f in (("eager", fn), ("compiled", torch.compile(fn, dynamic=False))):
        for _ in range(int(req.get("warmup", 3))):
            f(x)
        times = []
        for _ in range(int(req.get("iters", 20))):
            if cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                f(x)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            else:
                t0 = time.perf_counter()
                f(x)
                times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        ans[name + "_ms"] = times[len(times) // 2]
    out, y = fn(x)
    # What the pattern must move at least: read x, write the producer's output and the padded one.
    ans["bytes_moved"] = (x.numel() + y.numel() + out.numel()) * x.element_size()
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
                want, _ = compute_local_shape_and_global_offset(tuple(y.shape), mesh, y.placements)
                if rank > 0 and tuple(loc.shape) != tuple(want):  # the cache's shape: not this rank's own
                    out["skipped_ranks"] = out.get("skipped_ranks", 0) + 1
                    continue
                out["locals"].append({"coords": list(mesh.get_coordinate()), "shape": list(loc.shape),
                                      "data": raw(loc)})
        finally:
            dist.destroy_process_group()
    return out


# --- one process per rank (gloo on the CPU, nccl on GPUs) -----------------------------------------
_POOLS = {}  # (world size, backend) -> (processes, request queues, answer queue)
_MESHES = {}  # in a rank: mesh shape -> DeviceMesh


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


def _rank_case(torch, req, rank, device):
    import math
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    shape, mesh_shape = tuple(req["shape"]), tuple(req["mesh"])
    mesh = _MESHES.get(mesh_shape)
    if mesh is None:  # one mesh (and its process groups) per shape for the rank's life
        mesh = _MESHES[mesh_shape] = init_device_mesh(device, mesh_shape)
    x = torch.arange(math.prod(shape), dtype=torch.int64, device=device).reshape(shape)
    error = None
    try:
        d = _input_dtensor(torch, x, mesh, [_placement(p) for p in req["in"]])
        y = _view(d, req["view_op"], req["args"])
    except Exception as e:  # the op refused, on every rank or only on some
        msg = str(e).strip().splitlines()
        error = "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])
    # Every rank learns whether any refused before a collective that a refusing rank would never
    # join: the ranks stay in step for the next case.
    refused = torch.tensor([1 if error else 0], dtype=torch.int64, device=device)
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


def _rank_main(rank, world, backend, init_file, inq, outq):
    import os
    _die_with_parent()
    os.dup2(2, 1)  # the parent's stdout is the protocol: nothing from a rank may reach it
    import torch
    import torch.distributed as dist
    device, bound = "cpu", {}
    if backend == "nccl":  # a GPU per rank (NCCL refuses two ranks on one device)
        torch.cuda.set_device(rank)
        device, bound = "cuda", {"device_id": torch.device("cuda", rank)}  # sub-meshes split, not new groups
    dist.init_process_group(backend, init_method="file://" + init_file, rank=rank, world_size=world, **bound)
    while True:
        req = inq.get()
        if req is None:
            break
        try:
            outq.put((rank, _rank_case(torch, req, rank, device)))
        except Exception as e:
            msg = str(e).strip().splitlines()
            outq.put((rank, {"fatal": "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])}))
    dist.destroy_process_group()


def _pool(world, backend):
    import multiprocessing, os, tempfile
    if (world, backend) in _POOLS:
        return _POOLS[(world, backend)]
    ctx = multiprocessing.get_context("spawn")
    init_file = os.path.join(tempfile.mkdtemp(prefix="wheelsmoke-gloo-"), "store")
    inqs = [ctx.Queue() for _ in range(world)]
    outq = ctx.Queue()
    procs = [ctx.Process(target=_rank_main, args=(r, world, backend, init_file, inqs[r], outq), daemon=True)
             for r in range(world)]
    for p in procs:
        p.start()
    _POOLS[(world, backend)] = (procs, inqs, outq)
    return _POOLS[(world, backend)]


def _drop_pool(key):
    procs, inqs, _ = _POOLS.pop(key)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(5)


def _close_pools():
    """At the end of the requests: each rank leaves its group, then is stopped if it lingers."""
    for key in list(_POOLS):
        procs, inqs, _ = _POOLS[key]
        for q in inqs:
            q.put(None)
        for p in procs:
            p.join(10)
        _drop_pool(key)


def dtensor(torch, req):
    import math, queue
    world = math.prod(req["mesh"])
    backend = req.get("backend", "gloo")
    if backend not in ("gloo", "nccl"):
        return {"ok": False, "error_type": "ProtocolError", "message": "unknown dtensor backend %r" % (backend,)}
    if backend == "nccl" and torch.cuda.device_count() < world:
        raise RuntimeError("nccl needs a GPU per rank: the mesh has %d ranks, the artifact sees %d GPUs"
                           % (world, torch.cuda.device_count()))
    key = (world, backend)
    procs, inqs, outq = _pool(world, backend)
    for q in inqs:
        q.put(req)
    answers = {}
    try:
        while len(answers) < world:
            rank, a = outq.get(timeout=float(req.get("rank_timeout", 120)))
            answers[rank] = a
    except queue.Empty:
        dead = [r for r, p in enumerate(procs) if not p.is_alive()]
        _drop_pool(key)
        raise RuntimeError("ranks %s did not answer (%s)" % (sorted(set(range(world)) - set(answers)),
                                                               "dead: %s" % dead if dead else "a collective hung"))
    fatal = [a["fatal"] for a in answers.values() if "fatal" in a]
    if fatal:
        _drop_pool(key)  # a rank failed outside the view op: the group may be out of step
        raise RuntimeError("a rank failed: " + fatal[0])
    first = answers[0]
    refusing = [r for r in range(world) if answers[r].get("error")]
    error = None
    if refusing:  # the first refusing rank's exception, and where it was raised
        error = "%s (on the rank at mesh coordinate %s)" % (answers[refusing[0]]["error"],
                                                            answers[refusing[0]]["coords"])
    out = {"ok": True, "backend": backend, "out": None if error else first.get("out"), "error": error,
           "locals": [], "data_valid": True, "full": None if error else first.get("full")}
    if error is None and req.get("locals", True):
        out["locals"] = [{"coords": answers[r]["coords"], "shape": answers[r]["shape"], "data": answers[r]["data"]}
                         for r in range(world)]
    return out


# --- rng_graph: CUDA graphs with per-capture generators -------------------------------------------
FULL64 = -2 ** 63  # random_(FULL64, None): every bit of each Philox word pair (the full int64 range)


def _rng_ops(gen, f, i):
    """The work a graph captures: torch.rand's uniform fill (float32), then a full-range int64 fill."""
    f.uniform_(generator=gen)
    i.random_(FULL64, None, generator=gen)


def _register(graph, *gens):
    """Registers generators with a graph where the torch needs it (2.4 to 2.14). torch 2.15 registers
    each generator lazily on its first use in a capture, and its register_generator_state is a
    deprecated no-op that warns (and may be gone later)."""
    import warnings
    register = getattr(graph, "register_generator_state", None)
    if register is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for gen in gens:
            register(gen)


def _rng_graph(torch, gen, n, stream=None):
    """A graph over _rng_ops drawing from `gen` (a per-capture generator), and its outputs."""
    f = torch.empty(n, device="cuda", dtype=torch.float32)
    i = torch.empty(n, device="cuda", dtype=torch.int64)
    _rng_ops(torch.Generator(device="cuda"), f, i)  # warm-up off the graph: kernels loaded before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    _register(g, gen)
    with torch.cuda.graph(g, stream=stream):
        _rng_ops(gen, f, i)
    torch.cuda.synchronize()
    return g, f, i


def _cuda_gen(torch, seed):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return gen


def rng_replays(torch, req):
    """Replays of one graph: before each, the generator's offset; the graph's outputs; the same ops
    run eagerly on a twin generator set to the state the replay started from."""
    seed, n = int(req["seed"]), int(req["numel"])
    gen = _cuda_gen(torch, seed)
    g, f, i = _rng_graph(torch, gen, n)
    out = {"ok": True, "seed": gen.initial_seed(), "offset_after_capture": gen.get_offset(), "replays": []}
    for _ in range(int(req.get("replays", 3))):
        before = gen.get_offset()
        twin = torch.Generator(device="cuda")
        twin.set_state(gen.get_state())
        g.replay()
        ef, ei = torch.empty_like(f), torch.empty_like(i)
        _rng_ops(twin, ef, ei)
        torch.cuda.synchronize()
        out["replays"].append({"offset": before, "offset_after": gen.get_offset(),
                               "graph": [tensor_answer(f), tensor_answer(i)],
                               "eager": [tensor_answer(ef), tensor_answer(ei)],
                               "eager_offset_after": twin.get_offset()})
    return out


def rng_two_streams(torch, req):
    """Two graphs captured on two streams, each with its own generator, replayed in `order` (0, 1, or
    "both": the two at once, one on each stream): before each replay its generator's offset, after it
    the graph's outputs."""
    seed, n = int(req["seed"]), int(req["numel"])
    gens = [_cuda_gen(torch, seed), _cuda_gen(torch, seed + 1)]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    graphs = [_rng_graph(torch, gens[k], n, stream=streams[k]) for k in (0, 1)]
    steps = []
    for step in req.get("order", [0, 1, 1, "both", 0]):
        ks = [0, 1] if step == "both" else [int(step)]
        before = [gens[k].get_offset() for k in (0, 1)]
        for k in ks:
            with torch.cuda.stream(streams[k]):
                graphs[k][0].replay()
        torch.cuda.synchronize()
        for k in ks:
            steps.append({"graph": k, "offset": before[k],
                          "out": [tensor_answer(graphs[k][1]), tensor_answer(graphs[k][2])]})
    return {"ok": True, "seeds": [g.initial_seed() for g in gens], "steps": steps,
            "final_offsets": [g.get_offset() for g in gens]}


def rng_graphsafe_state(torch, req):
    """A graph that switches its generator between two graph-safe states (graphsafe_get_state and
    clone_state, both drawn from in the capture), replayed beside the same steps run eagerly on a twin; then, outside
    any graph, a cloned state set back with graphsafe_set_state."""
    seed, n = int(req["seed"]), int(req["numel"])

    def states(gen):
        return gen.graphsafe_get_state(), gen.clone_state()

    def steps(gen, old, new, outs):
        gen.graphsafe_set_state(new)
        outs[0].uniform_(generator=gen)
        gen.graphsafe_set_state(old)
        outs[1].uniform_(generator=gen)
        outs[2].uniform_(generator=gen)

    gen = _cuda_gen(torch, seed)
    old, new = states(gen)
    outs = [torch.empty(n, device="cuda", dtype=torch.float32) for _ in range(3)]
    outs[0].uniform_(generator=torch.Generator(device="cuda"))  # warm-up off the graph
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    _register(g, old, new)
    with torch.cuda.graph(g):
        steps(gen, old, new, outs)
    torch.cuda.synchronize()
    twin = _cuda_gen(torch, seed)
    told, tnew = states(twin)
    eouts = [torch.empty(n, device="cuda", dtype=torch.float32) for _ in range(3)]
    replays = []
    for _ in range(int(req.get("replays", 3))):
        before = [old.get_offset(), new.get_offset()]
        g.replay()
        steps(twin, told, tnew, eouts)
        torch.cuda.synchronize()
        replays.append({"offsets": before, "offsets_after": [old.get_offset(), new.get_offset()],
                        "eager_offsets_after": [told.get_offset(), tnew.get_offset()],
                        "graph": [tensor_answer(t) for t in outs], "eager": [tensor_answer(t) for t in eouts]})
    rt = _cuda_gen(torch, seed + 2)
    snap = rt.clone_state()
    first = torch.rand(n, device="cuda", generator=rt)
    rt.graphsafe_set_state(snap)
    again = torch.rand(n, device="cuda", generator=rt)
    torch.cuda.synchronize()
    return {"ok": True, "seed": seed, "replays": replays,
            "roundtrip": {"seed": seed + 2, "first": tensor_answer(first), "again": tensor_answer(again),
                          "offset_after": rt.get_offset()}}


RNG_CHECKS = {"replays": rng_replays, "two_streams": rng_two_streams, "graphsafe_state": rng_graphsafe_state}


def rng_graph(torch, req):
    if not torch.cuda.is_available():
        return {"ok": False, "error_type": "NoCuda", "message": "torch.cuda.is_available() is False"}
    check = RNG_CHECKS.get(req.get("check"))
    if check is None:
        return {"ok": False, "error_type": "ProtocolError", "message": "unknown rng_graph check %r" % req.get("check")}
    return check(torch, req)


def hello(torch):
    cuda = torch.version.cuda
    device = "cpu"
    ans = {"ok": True, "torch": torch.__version__, "cuda": cuda, "python": sys.executable, "cuda_device": None}
    if torch.cuda.is_available():
        device = "cuda:" + torch.cuda.get_device_name(0)
        p = torch.cuda.get_device_properties(0)
        # What wheelsmoke needs to lay out PyTorch's Philox streams (calc_execution_policy: blocks of
        # 256 threads, at most SMs x max threads per SM / 256 blocks) and to place nccl ranks.
        ans["cuda_device"] = {"name": p.name, "capability": [p.major, p.minor], "count": torch.cuda.device_count(),
                              "sm_count": p.multi_processor_count,
                              "max_threads_per_sm": getattr(p, "max_threads_per_multi_processor", None)}
    ans["device"] = device
    return ans


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
            elif op == "pad_timing":
                ans = pad_timing(torch, req)
            elif op == "rng_graph":
                ans = rng_graph(torch, req)
            elif op == "dtensor":
                ans = dtensor_fake(torch, req) if req.get("backend") == "fake" else dtensor(torch, req)
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
