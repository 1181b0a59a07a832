#!/usr/bin/env python3
"""The one discipline for every cache the tests, the benchmarks and the tools share across processes
(CTest runs tests side by side; two checkouts may share one HOME):

- a file appears under its final name only by an atomic rename of a complete, fsynced file written
  to a temporary name of this process's own in the same directory, so a reader never sees half of it;
- writers of the same entry take an exclusive flock on a sibling `<name>.lock` file and look again
  once they hold it, so the second one finds the first one's result instead of doing the work twice;
- a failure (a hash mismatch, a cut download, an exception) removes only its own temporary file.

Used as a module (fetch, ensure_venv, extract_dir, atomic_write, locked) and as a command:

  wc_cache.py venv DIR REQUIREMENT...      prints DIR/bin once pip has installed the requirements
  wc_cache.py extract TARBALL MEMBER DEST  DEST/MEMBER, the tarball's folder MEMBER, made once

Exit 3 when the package index cannot be reached (callers skip), 1 on any other failure."""
import contextlib, fcntl, hashlib, http.client, json, os, shutil, subprocess, sys, tarfile, tempfile
import urllib.error, urllib.parse, urllib.request

DEFAULT_INDEX = "https://pypi.org/simple"
MARKER = ".wheelcheck-complete"


class Offline(Exception):
    """The package index could not be reached: callers skip rather than fail."""


class Failed(Exception):
    """Anything else: a hash mismatch, a file the index does not list, a cut download."""


@contextlib.contextmanager
def locked(path):
    """Holds an exclusive flock on `path + '.lock'` (created if needed) for the block's duration.
    The lock file itself is never removed: removing it would let two holders lock two inodes."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _fsync_dir(path):
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_output(dst):
    """Yields a binary file open on a temporary name of its own beside `dst`; on a normal exit the
    file is fsynced and renamed over `dst`, on an exception it is removed (and only it)."""
    d = os.path.dirname(os.path.abspath(dst))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(dst) + ".", suffix=".part")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would make the cache one user's
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dst)
        _fsync_dir(dst)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def atomic_write(dst, data):
    with atomic_output(dst) as out:
        out.write(data)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.hexdigest()


def _has(path, sha256):
    return os.path.isfile(path) and sha256_of(path) == sha256


def index_url():
    return os.environ.get("WHEELCHECK_PYPI_SIMPLE", DEFAULT_INDEX).rstrip("/")


def _file_url(project, name, pages):
    if project not in pages:
        base = index_url()
        req = urllib.request.Request(f"{base}/{project}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            page = json.load(r)
        pages[project] = {f["filename"]: urllib.parse.urljoin(f"{base}/{project}/", f["url"]) for f in page["files"]}
    url = pages[project].get(name)
    if not url:
        raise Failed(f"{name}: not on the index's page for {project}")
    return url


def fetch(cache, project, name, sha256, pages=None):
    """CACHE/NAME with the given sha256, downloaded from the index once (whoever holds the lock
    downloads; the others find its result). Returns the path."""
    dst = os.path.join(cache, name)
    if _has(dst, sha256):
        return dst
    pages = {} if pages is None else pages
    with locked(dst):
        if _has(dst, sha256):  # another process fetched it while this one waited
            return dst
        try:
            url = _file_url(project, name, pages)
            h, got = hashlib.sha256(), 0
            with urllib.request.urlopen(url, timeout=600) as r, atomic_output(dst) as out:
                while b := r.read(1 << 20):
                    h.update(b)
                    out.write(b)
                    got += len(b)
                promised = r.headers.get("Content-Length")
                if promised is not None and promised.isascii() and promised.isdigit() and int(promised) != got:
                    raise Failed(f"{name}: download failed: cut short after {got} of {promised} bytes")
                if h.hexdigest() != sha256:
                    raise Failed(f"{name}: sha256 {h.hexdigest()}, expected {sha256}")
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            raise Offline(f"cannot reach the package index for {name}: {e}") from e
        except (OSError, ValueError, KeyError, http.client.HTTPException) as e:  # a cut body, a bad page
            raise Failed(f"{name}: download failed: {e!r}") from e
    return dst


def ensure_venv(path, requirements, timeout=3600):
    """A venv at PATH with REQUIREMENTS pip-installed, made once: its marker file (the requirement
    list) is written last, atomically, so a venv without it is unfinished and is made again."""
    marker = os.path.join(path, MARKER)
    want = json.dumps(sorted(requirements))

    def ready():
        try:
            with open(marker) as f:
                return f.read() == want
        except OSError:
            return False

    bindir = os.path.join(path, "bin")
    if ready():
        return bindir
    with locked(path):
        if ready():
            return bindir
        shutil.rmtree(path, ignore_errors=True)
        try:
            subprocess.run([sys.executable, "-m", "venv", path], check=True, stdout=sys.stderr, timeout=600)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            raise Failed(f"python3 -m venv {path}: {e}") from e
        try:
            subprocess.run([os.path.join(bindir, "python"), "-m", "pip", "install", "-q", *requirements],
                           check=True, stdout=sys.stderr, timeout=timeout)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            # pip says why on stderr; no network is by far the usual cause on these machines.
            raise Offline(f"pip could not install {' '.join(requirements)} into {path}: {e}") from e
        atomic_write(marker, want.encode())
    return bindir


def extract_dir(tarball, member, dest):
    """DEST/MEMBER: the folder MEMBER of TARBALL, extracted once into a temporary folder beside it
    and renamed into place, so its presence means it is whole."""
    final = os.path.join(dest, member)
    if os.path.isdir(final):
        return final
    with locked(final):
        if os.path.isdir(final):
            return final
        tmp = tempfile.mkdtemp(dir=dest, prefix="." + os.path.basename(member) + ".", suffix=".part")
        try:
            with tarfile.open(tarball) as t:
                picked = [m for m in t.getmembers() if m.name == member or m.name.startswith(member + "/")]
                if hasattr(tarfile, "data_filter"):  # refuses links and paths out of tmp
                    t.extractall(tmp, members=picked, filter="data")
                else:
                    t.extractall(tmp, members=[m for m in picked if not (m.issym() or m.islnk() or ".." in m.name)])
            os.rename(os.path.join(tmp, member), final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def main(argv):
    try:
        if len(argv) >= 3 and argv[1] == "venv":
            print(ensure_venv(argv[2], argv[3:]))
        elif len(argv) == 5 and argv[1] == "extract":
            print(extract_dir(argv[2], argv[3], argv[4]))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except Offline as e:
        print(e, file=sys.stderr)
        return 3
    except Failed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))


def check_table(path, doc):
    """The generators' --check: True when the JSON table at `path` equals `doc`; else the first
    differences go to stderr and it is False."""
    with open(path) as f:
        diffs = list(differences(json.load(f), doc))
    if diffs:
        print("\n".join(diffs[:20]), file=sys.stderr)
        print(f"{path}: {len(diffs)} differences from the generated table", file=sys.stderr)
    return not diffs


# For the generators' --check: where a shipped JSON table and the regenerated one differ.
def differences(old, new, path=""):
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if k not in old or k not in new:
                yield f"{path}{k}: {'missing from the file' if k not in old else 'not in the source'}"
            else:
                yield from differences(old[k], new[k], f"{path}{k}.")
    elif old != new:
        yield f"{path.rstrip('.')}: the source says {json.dumps(new)}, the file {json.dumps(old)}"
