#!/usr/bin/env python3
"""PyTorch as the oracle for the dtensor_view model: reads cases (one JSON object per line:
{"shape": [...], "mesh": [...], "in": ["S(0)", "SS(0,2)", "R", "P"], "op": "view", "args": [...]}) and
prints, per line, {"out": [...placements...]} or {"error": "<exception type>: <message>"}, from
real DTensors on a device mesh over a fake process group, one process as each rank in turn (an op
that raises raises; a local view that raises only on a later rank is PyTorch's sharding cache, see
the probe's dtensor_fake, and does not count). The work is wheelsmoke's probe's (src/smoke/artifact/wheelsmoke_probe.py,
the `dtensor` request), so the oracle and artifact mode ask PyTorch the same way.

  PY tools/dtensor_oracle.py < cases.jsonl

Needs torch (CPU is enough). The torch version is printed first: {"torch": "2.15.0"}."""
import json, os, sys, warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "smoke", "probe"))
import torch
import torch.distributed as dist
import wheelsmoke_probe


def main():
    print(json.dumps({"torch": torch.__version__.split("+")[0]}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        c = json.loads(line)
        req = {"shape": c["shape"], "mesh": c["mesh"], "in": c["in"], "view_op": c["op"], "args": c["args"],
               "locals": False}
        try:
            ans = wheelsmoke_probe.dtensor_fake(torch, req)
            print(json.dumps({"error": ans["error"]} if ans["error"] else {"out": ans["out"]}), flush=True)
        except Exception as e:  # the model must raise where PyTorch does, on any rank
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
            print(json.dumps({"error": f"{type(e).__name__}: {msg[:300]}"}), flush=True)
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()


if __name__ == "__main__":
    try:
        main()
    finally:
        wheelsmoke_probe._close_pools()
