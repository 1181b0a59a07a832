#!/usr/bin/env python3
"""What symbol-level resolution (WC514-WC516) costs: `wheelcheck check` of torch 2.15.0 with the
native wheels of its install set (its nvidia-* dependencies, triton, cuda-bindings: 3.3 GB, pinned
by sha256, downloaded into the cache once), by this build and by a baseline build of the commit
before symbols were resolved, in one run on the same files.

  install_set.py CACHE CANDIDATE_BINARY BASELINE_BINARY [--runs N] [--out FILE]

Each binary: one warm-up run, then N timed runs (median seconds, max RSS from wait4). Prints a
Markdown table with the ratios and the targets (at most 1.10x the time and 1.5x the peak RSS of the
baseline). Exit 3 when PyPI cannot be reached."""
import argparse, os, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(here)

# torch 2.15.0 (cp312, manylinux_2_28_x86_64) and the wheels of its install set that carry native code.
WHEELS = [
    ("torch", "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl",
     "6d8c86f4e33a9f12a58149bd9b0d64351632b8eb44479be8ff85e5389932dd79"),
    ("nvidia-cudnn-cu13", "nvidia_cudnn_cu13-9.26.0.51-py3-none-manylinux_2_27_x86_64.whl",
     "9c976d539786698c71d6bcdbe2053b7485fae062ff7e1215d2f2ff67b1a2149a"),
    ("nvidia-cusparselt-cu13", "nvidia_cusparselt_cu13-0.8.1-py3-none-manylinux2014_x86_64.whl",
     "786ce87568c303fadb5afcc7102d454cd3040d75f6f8626f5db460d1871f4dd0"),
    ("nvidia-nccl-cu13", "nvidia_nccl_cu13-2.30.7-py3-none-manylinux_2_18_x86_64.whl",
     "cefa7fdb9710efd0f39c5f1be1d61ff6fc9a996c451265bd7fbdcf9455ed4b50"),
    ("nvidia-nvshmem-cu13", "nvidia_nvshmem_cu13-3.7.2-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "b9a4f843c62b5dded8ad33fd6d220e007dcd39f06cee549292f5ba14ce4c235c"),
    ("nvidia-cublas", "nvidia_cublas-13.4.1.3-py3-none-manylinux_2_27_x86_64.whl",
     "a5917cb642cfb07f4a0231ee16aec7e2e0357d8cb8b1b78a0c9c68dba3e6afc7"),
    ("nvidia-cuda-cupti", "nvidia_cuda_cupti-13.2.86-py3-none-manylinux_2_25_x86_64.whl",
     "8fa29f15dd8336181f961764d9d95236fc6b931dd0c8fcf8cd70aab0c310b586"),
    ("nvidia-cuda-nvrtc", "nvidia_cuda_nvrtc-13.2.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
     "8111c5130e967b78222ea2124145f8efe9ce201b752b2579a2513100a53be1c5"),
    ("nvidia-cuda-runtime", "nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "3498247680dfddce31bad102af7e3e26fc795342a3cac64722bb0fa95e7f60f0"),
    ("nvidia-cufft", "nvidia_cufft-12.2.0.57-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "34da27fadf3979b0b042c43823f0530be8408b86df31ee0108e1ca0b621d4ef6"),
    ("nvidia-cufile", "nvidia_cufile-1.17.1.22-py3-none-manylinux_2_27_x86_64.whl",
     "87feaf8c3ad20d3d03a01933181801ff6892bace5c8f0b1e4b48f319d3e62d36"),
    ("nvidia-cusolver", "nvidia_cusolver-12.2.0.11-py3-none-manylinux_2_27_x86_64.whl",
     "fab5778f6769947389a1a6abc07e635576825a08c0ffc68c3ae7f1392c794b42"),
    ("nvidia-cusparse", "nvidia_cusparse-12.7.10.12-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "25907c75e4db1581685f06f61cc6cdecc04611765516a52373e0a18ebd69fa00"),
    ("nvidia-nvtx", "nvidia_nvtx-13.2.86-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl",
     "968ce72baee2a01791c7d3254000eac81f24677b0b91c62d21b449a1f309c245"),
    ("nvidia-nvjitlink", "nvidia_nvjitlink-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
     "280d7cb9649704145f074b8dbde500de04ce02d0872e066e20a83c17bcaa93eb"),
    ("cuda-bindings", "cuda_bindings-13.5.0-cp312-cp312-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
     "a46a8cc84112d769d0f57bf3ae3fedc115cf09348f14da85a1a8200968b6f262"),
    ("triton", "triton-3.9.0-cp312-abi3-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
     "5e52ab4e2f1d64f0ac494c9aa723697b793f81a91c4cae4c36608ca0bc4267bf"),
]


def fetch(cache):
    args = [sys.executable, os.path.join(ROOT, "tools", "fetch_wheels.py"), cache]
    for w in WHEELS:
        args += list(w)
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        print(r.stderr, file=sys.stderr)
        sys.exit(r.returncode)
    return r.stdout.split()


def once(cmd):
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{cmd[0]} exited {code}")
    return time.monotonic() - start, usage.ru_maxrss  # KiB


def measure(binary, files, runs):
    cmd = [binary, "check", "-q", "--no-config"] + files
    once(cmd)  # warm-up: the page cache
    samples = [once(cmd) for _ in range(runs)]
    return statistics.median(t for t, _ in samples), max(m for _, m in samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache")
    ap.add_argument("candidate")
    ap.add_argument("baseline")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    files = fetch(os.path.join(a.cache, "install-set"))
    size = sum(os.path.getsize(f) for f in files)
    # Interleaved, so drift of the machine touches both alike.
    base_t, base_m = measure(a.baseline, files, a.runs)
    cand_t, cand_m = measure(a.candidate, files, a.runs)
    rows = [
        "| check of torch 2.15.0 + its install set (%d wheels, %.2f GB) | seconds | peak RSS (MiB) |" %
        (len(files), size / 1e9),
        "|---|---:|---:|",
        "| baseline (before symbol resolution) | %.1f | %.0f |" % (base_t, base_m / 1024),
        "| this build (WC514-WC516) | %.1f | %.0f |" % (cand_t, cand_m / 1024),
        "| ratio (target at most 1.10x time, 1.5x RSS) | %.3fx | %.3fx |" % (cand_t / base_t, cand_m / base_m),
    ]
    text = "\n".join(rows) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
