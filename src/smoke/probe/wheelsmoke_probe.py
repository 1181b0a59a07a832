"""wheelsmoke's probe: runs under the interpreter of the artifact being tested and only calls its
PyTorch. wheelsmoke writes one JSON request per line on stdin; the probe answers each with one
JSON line on stdout and judges nothing (every comparison happens in wheelsmoke, against its CPU
references). Requests:
  {"op": "hello"} -> torch version, torch.version.cuda, device, interpreter
  {"op": "pad", "dtype": "f32", "shape": [..], "data": base64 of the input's little-endian bytes,
   "producer": "copy" | "twice", "pad": [..], "fill": number or "nan"/"inf"/"-inf",
   "compile": false | true, "device": "cpu" | "cuda"}
     -> the padded output (and, compiled, the producer's output a second consumer reads)
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
