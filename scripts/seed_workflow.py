#!/usr/bin/env python3
"""seed_workflow.py: the seeds' own Python workflow, as a benchmark baseline.

    seed_workflow.py TRACE[.json|.json.gz] OUTDIR

What the DLRM perf-model notebooks (analysis/trace_utils.py) and HTA do with a
PyTorch profiler trace, reduced to the part `tracepress report` replaces:
json.load of the whole file, the device events (kernels, memcpy, memset; both
category vocabularies) aggregated by name (count, total, mean, min, max, p10,
p50, p90), and matplotlib bar charts of the top 80 kernels by total and by
mean time, each saved as PDF and PNG (1600 px wide).  Prints the top 5.

Needs numpy and matplotlib (Debian python3-matplotlib: run it with
/usr/bin/python3).  Used by scripts/bench; not a test.
"""
import collections
import gzip
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

DEVICE_CATS = {"kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        trace = json.load(f)
    return trace["traceEvents"] if isinstance(trace, dict) else trace


def aggregate(events):
    durs = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in DEVICE_CATS:
            durs[e["name"]].append(float(e.get("dur", 0)))
    rows = []
    for name, d in durs.items():
        a = np.asarray(d)
        p10, p50, p90 = np.percentile(a, [10, 50, 90])
        rows.append({"name": name, "count": len(a), "total": a.sum(), "mean": a.mean(),
                     "min": a.min(), "max": a.max(), "p10": p10, "p50": p50, "p90": p90})
    return rows


def short(name, n=48):
    name = name[5:] if name.startswith("void ") else name
    name = name.split("(")[0].split("<")[0]
    return name if len(name) <= n else name[: n - 3] + "..."


def bar_chart(rows, key, title, base):
    top = sorted(rows, key=lambda r: r[key], reverse=True)[:80]
    fig, ax = plt.subplots(figsize=(16, 9), dpi=100)
    ax.bar(range(len(top)), [r[key] for r in top], color="#4477aa")
    ax.set_xticks(range(len(top)))
    ax.set_xticklabels([short(r["name"]) for r in top], rotation=90, fontsize=6)
    ax.set_ylabel(f"{key} time (us)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(base + ".pdf")
    fig.savefig(base + ".png")
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    events = load(path)
    rows = aggregate(events)
    bar_chart(rows, "total", "Top 80 kernels by total time", os.path.join(outdir, "top80_total"))
    bar_chart(rows, "mean", "Top 80 kernels by mean time", os.path.join(outdir, "top80_mean"))
    print(f"{len(events)} events, {sum(r['count'] for r in rows)} device events, {len(rows)} names")
    for r in sorted(rows, key=lambda r: r["total"], reverse=True)[:5]:
        print(f"{r['total']:14.3f} us {r['count']:8d}  {short(r['name'], 80)}")


if __name__ == "__main__":
    main()
