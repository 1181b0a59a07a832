"""wheelsmoke import's probe: runs under the interpreter of the environment being checked, one fresh
process per request, and judges nothing. wheelsmoke writes one JSON request on stdin; the probe
answers with JSON lines on its stdout, the last one carrying "done". Before the request runs, the
probe keeps its stdout for the answers alone and points file descriptor 1 at stderr: whatever the
imported code prints goes there (wheelsmoke keeps its tail and counts it), never into the protocol.
Requests:
  {"op": "env"} -> the interpreter (version, prefixes, sys.path) and every
     distribution importlib.metadata finds, with the native files its RECORD installed
     ([path in RECORD, real path, RECORD hash]).
  {"op": "import", "module": "pkg.mod"} -> imports it; "error_type", "message", "error_path"
     (ImportError.path) and the traceback's last lines on failure; "loaded", every shared object in
     the process afterwards ([name as the loader has it, real path]) from dl_iterate_phdr, and
     "before", those already there before the import; "threads", the non-daemon threads alive
     after it (the interpreter waits for them at exit).
  {"op": "libraries", "first_dists": [...], "first": "pkg" or null, "paths": [...]} -> imports the
     top-level package of each installed distribution of first_dists (a dependency whose import
     loads its libraries: torch before a torchvision that failed to import), then `first`, then
     opens each path with ctypes.CDLL(path, RTLD_NOW): a line {"opening": n} after those imports,
     {"trying": path} before each library,
     {"library": path, "ok", "message"} after it (a crash is known by the last "trying"), then the
     final line.
After the final line the probe exits normally: an import that left threads keeps it alive, and
wheelsmoke sees that as the hang a plain `python -c "import pkg"` would show."""
import json, os, sys, time

out = os.fdopen(os.dup(1), "w", encoding="ascii")
os.dup2(2, 1)


def clean(obj):
    """Text a JSON reader takes: a path or message with bytes that are not UTF-8 (os.fsdecode gives
    lone surrogates for them) carries them as \\xNN instead."""
    if isinstance(obj, str):
        return obj.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if isinstance(obj, dict):
        return {clean(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return obj


def send(obj):
    out.write(json.dumps(clean(obj)) + "\n")
    out.flush()


def loaded_objects():
    try:
        import ctypes

        class Info(ctypes.Structure):
            _fields_ = [("addr", ctypes.c_void_p), ("name", ctypes.c_char_p), ("phdr", ctypes.c_void_p),
                        ("phnum", ctypes.c_uint16)]

        names = []

        def each(info, size, data):
            n = info.contents.name
            if n:
                names.append(os.fsdecode(n))
            return 0

        cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Info), ctypes.c_size_t, ctypes.c_void_p)(each)
        ctypes.CDLL(None).dl_iterate_phdr(cb, None)
    except Exception:  # no ctypes, or no dl_iterate_phdr: the maps of the process
        names, seen = [], set()
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/") and "x" in parts[1]:
                    p = parts[5].strip()
                    if p not in seen:
                        seen.add(p)
                        names.append(p)
    result = []
    for n in names:
        if n.startswith("/") or os.path.exists(n):
            result.append([n, os.path.realpath(n)])
    return result


def error_fields(e):
    import traceback
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    return {"ok": False, "error_type": type(e).__name__, "message": str(e)[:4000],
            "error_path": getattr(e, "path", None) if isinstance(getattr(e, "path", None), str) else None,
            "traceback": "".join(tb)[-4000:]}


def threads_left():
    import threading
    return [t.name for t in threading.enumerate()
            if t is not threading.main_thread() and t.is_alive() and not t.daemon]


def env():
    import importlib.metadata
    dists = []
    for d in importlib.metadata.distributions():
        try:  # a broken .dist-info (no METADATA, a RECORD that does not parse) is skipped, not fatal
            files = []
            for f in d.files or []:
                base = f.name
                if not (".so" in base or base.endswith((".pyd", ".dll", ".dylib"))):
                    continue
                try:
                    real = os.path.realpath(str(d.locate_file(f)))
                except Exception:
                    continue
                files.append([str(f), real, "%s=%s" % (f.hash.mode, f.hash.value) if f.hash else ""])
            name = d.metadata.get("Name") if d.metadata else None
            version = d.version
        except Exception:
            continue
        if isinstance(name, str) and isinstance(version, str):
            dists.append({"name": name, "version": version, "files": files})
    return {"ok": True, "python": sys.version.split()[0], "executable": sys.executable,
            "prefix": os.path.realpath(sys.prefix), "base_prefix": os.path.realpath(sys.base_prefix),
            "path": [os.path.realpath(p) for p in sys.path if p], "distributions": dists,
            "ld_library_path": os.environ.get("LD_LIBRARY_PATH", "")}


def top_level_of(dist_name):
    """The package a distribution's import starts from: the top-level folder with an __init__.py
    named like the project, else the first one."""
    import importlib.metadata
    try:
        files = importlib.metadata.distribution(dist_name).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    tops = sorted({f.parts[0] for f in files if len(f.parts) == 2 and f.parts[1] == "__init__.py"})
    want = dist_name.replace("-", "_").lower()
    return want if want in tops else (tops[0] if tops else None)


def do_import(module):
    before = loaded_objects()
    t0 = time.monotonic()
    try:
        __import__(module)
        answer = {"ok": True}
    except BaseException as e:  # SystemExit and KeyboardInterrupt from an import are failures too
        answer = error_fields(e)
    answer["seconds"] = time.monotonic() - t0
    answer["before"] = [p for _, p in before]
    return answer


def main():
    import faulthandler
    faulthandler.enable()  # a crash prints the Python stack to stderr, which wheelsmoke keeps
    send({"probe": "wheelsmoke import"})  # stdout is the protocol's alone from here on
    req = json.loads(sys.stdin.readline())
    op = req.get("op")
    if req.get("dump_after"):  # where a hang is stuck, shortly before wheelsmoke kills it
        faulthandler.dump_traceback_later(float(req["dump_after"]), exit=False)
    if op == "env":
        answer = env()
    elif op == "import":
        answer = do_import(req["module"])
    elif op == "libraries":
        answer = {"ok": True}
        for d in req.get("first_dists", []):
            top = top_level_of(d)
            if top:
                send({"dependency": top, "result": do_import(top)})
        if req.get("first"):
            first = do_import(req["first"])
            send({"first": first})
        send({"opening": len(req.get("paths", []))})  # the imports before are done
        for p in req.get("paths", []):
            send({"trying": p})
            try:
                import ctypes
                ctypes.CDLL(p, mode=os.RTLD_NOW)
                send({"library": p, "ok": True})
            except OSError as e:
                send({"library": p, "ok": False, "message": str(e)[:4000]})
    else:
        answer = {"ok": False, "error_type": "ValueError", "message": "unknown op %r" % (op,)}
    if op in ("import", "libraries"):
        answer["loaded"] = loaded_objects()
        answer["threads"] = threads_left()
    faulthandler.cancel_dump_traceback_later()
    answer["done"] = True
    send(answer)
    sys.stdout.flush()


main()
