#!/usr/bin/env python3
"""HTA's idle time breakdown, kernel launch statistics and queue length
recomputed by hand (plain Python, integer ns) on a Kineto trace, to check
tracepress's idle attribution (docs/REPORT.md "Idle attribution and launch
statistics").  Written from reading HTA's definitions
(hta/analyzers/breakdown_analysis.py _analyze_idle_time_for_stream,
cuda_kernel_analysis.py cuda_kernel_launch_stats, trace_counters.py
_get_queue_length_time_series_for_rank, common/trace.py
_filter_irrelevant_gpu_kernels); not HTA's code.

    scripts/hta_idle.py TRACE.json[.gz] [--no-filter]

Per stream it prints HTA's figures (HTA's kernel set: with two or more
ProfilerStep names, only device work whose launch call starts before the
last step does; --no-filter: every device event, tracepress's set) and, on
the same set, tracepress's rule for gaps (the latest end so far instead of
the previous kernel's end: differs only where activities on a stream
overlap)."""
import gzip
import json
import sys
from decimal import Decimal

DEVICE_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
LAUNCH_STATS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
                "runFunction - job_prep_and_submit_for_execution"}
QUEUE_LAUNCH = LAUNCH_STATS | {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel", "hipExtModuleLaunchKernel",
                               "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream"}
SHORT_GAP_NS = 30000  # HTA's consecutive_kernel_delay = 30, in the trace's unit (us)


def ns(v):
    return int(Decimal(str(v)) * 1000)


def percentile(v, p):  # numpy linear, rounded half away from zero to ns
    if not v:
        return None
    pos = Decimal(len(v) - 1) * p / 100
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    x = Decimal(v[lo]) + (Decimal(v[hi]) - v[lo]) * (pos - lo)
    return int(x.to_integral_value(rounding="ROUND_HALF_UP"))


def main():
    path = sys.argv[1]
    nofilter = "--no-filter" in sys.argv
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        evs = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    for e in evs:
        e["ts_ns"], e["dur_ns"] = ns(e["ts"]), ns(e.get("dur", 0))
    dev = [e for e in evs if e.get("cat") in DEVICE_CATS]
    host = [e for e in evs if e.get("cat") not in DEVICE_CATS and e.get("cat") != "cuda_sync"]
    runtime = {}
    for e in host:
        c = e.get("args", {}).get("correlation")
        if c is not None:
            runtime[c] = e
    steps = [e for e in host if e["name"].startswith("ProfilerStep#")]
    if len({e["name"] for e in steps}) >= 2 and not nofilter:
        last = max(e["ts_ns"] for e in steps)
        kept = {c for c, e in runtime.items() if e["ts_ns"] < last}
        dev = [e for e in dev if e["args"].get("correlation") in kept]
        print(f"HTA's filter: device events launched before the last step ({last} ns): {len(dev)}")
    streams = {}
    for e in dev:
        streams.setdefault(e["args"].get("stream"), []).append(e)
    for s in sorted(streams, key=lambda x: (str(type(x)), x)):
        ks = sorted(streams[s], key=lambda e: e["ts_ns"])  # stable: file order on ties
        hta = {"host_wait": 0, "kernel_wait": 0, "other": 0}
        ours = {"host_wait": 0, "kernel_wait": 0, "other": 0}
        maxend = None
        for i, k in enumerate(ks):
            rt = runtime.get(k["args"].get("correlation"))
            if i:
                prev_end = ks[i - 1]["ts_ns"] + ks[i - 1]["dur_ns"]
                gap = k["ts_ns"] - prev_end
                if rt is not None and rt["ts_ns"] > prev_end:
                    cat = "host_wait"
                elif gap < SHORT_GAP_NS:
                    cat = "kernel_wait"
                else:
                    cat = "other"
                hta[cat] += gap
                if k["ts_ns"] > maxend:
                    g = k["ts_ns"] - maxend
                    if rt is not None and rt["ts_ns"] > maxend:
                        ours["host_wait"] += g
                    elif g < SHORT_GAP_NS:
                        ours["kernel_wait"] += g
                    else:
                        ours["other"] += g
            end = k["ts_ns"] + k["dur_ns"]
            maxend = end if maxend is None or end > maxend else maxend
        # launch delay (HTA's launch names, clipped at 0)
        delays = []
        for k in ks:
            rt = runtime.get(k["args"].get("correlation"))
            if rt is not None and rt["name"] in LAUNCH_STATS:
                delays.append(max(0, k["ts_ns"] - rt["ts_ns"] - rt["dur_ns"]))
        delays.sort()
        # queue length: +1 at the launch call's start, -1 at the kernel's start
        pts = []
        for k in ks:
            rt = runtime.get(k["args"].get("correlation"))
            if rt is not None and rt["name"] in QUEUE_LAUNCH:
                pts.append((rt["ts_ns"], 1))
                pts.append((k["ts_ns"], -1))
        qmax = {}
        for order in ("end first", "start first"):  # HTA's unstable sort leaves ties open
            q, m, vals = 0, 0, []
            for _, d in sorted(pts, key=lambda p: (p[0], p[1] if order == "end first" else -p[1])):
                q += d
                m = max(m, q)
                vals.append(q)
            qmax[order] = m
        # tracepress's time-weighted mean: queued time over the window
        wait = window0 = 0
        for k in ks:
            rt = runtime.get(k["args"].get("correlation"))
            if rt is not None and rt["name"] in QUEUE_LAUNCH and k["ts_ns"] > rt["ts_ns"]:
                wait += k["ts_ns"] - rt["ts_ns"]
        starts = [ks[0]["ts_ns"]] + [runtime[k["args"]["correlation"]]["ts_ns"] for k in ks
                                     if k["args"].get("correlation") in runtime and
                                     runtime[k["args"]["correlation"]]["name"] in QUEUE_LAUNCH and
                                     k["ts_ns"] > runtime[k["args"]["correlation"]]["ts_ns"]]
        window0 = min(starts)
        window = maxend - window0
        print(f"stream {s}: activities {len(ks)} span {maxend - ks[0]['ts_ns']}")
        print(f"  HTA idle (previous kernel's end): {hta} total {sum(hta.values())}")
        print(f"  tracepress rule (latest end):     {ours} total {sum(ours.values())}")
        print(f"  launch delay: count {len(delays)} p50 {percentile(delays, 50)} p90 {percentile(delays, 90)}"
              f" max {delays[-1] if delays else None}")
        print(f"  queue length: max {qmax} HTA sample mean {Decimal(sum(vals)) / len(vals) if vals else None}"
              f" (count {len(vals)}) time-weighted mean {wait}/{window}"
              f" = {(Decimal(wait) / window).quantize(Decimal('0.000001')) if window else None}")


if __name__ == "__main__":
    main()
