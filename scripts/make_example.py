#!/usr/bin/env python3
"""Write golden/example.pt.trace.json: a small synthetic PyTorch profiler
(Kineto 2.x layout) trace bundled with tracepress for the README's first
command and the golden tests.  Deterministic; no real data.

Three training steps (ProfilerStep#1..#3) of a tiny MLP on one GPU: aten ops
on the main thread, cudaLaunchKernel / cudaMemcpyAsync calls with correlation
ids, kernels and copies on stream 7, an ac2g launch flow per kernel, and a
memset on stream 20.  Timestamps are epoch microseconds with 3 decimals."""
import json, sys

BASE = 1712195495519689.047  # us; only for realism, the converter rebases
PID, TID = 4242, 4242
ev = []
corr = 100
t = 0.0

def X(cat, name, pid, tid, ts, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
         "ts": round(BASE + ts, 3), "dur": round(dur, 3)}
    if args is not None:
        e["args"] = args
    ev.append(e)
    return e

def launch(name, kernel, ts, dur_api, k_start, k_dur, ext, cat="kernel", api="cudaLaunchKernel", stream=7):
    global corr
    corr += 1
    X("cuda_runtime", api, PID, TID, ts, dur_api, {"External id": ext, "cbid": 211, "correlation": corr})
    X(cat, kernel, 0, stream, k_start, k_dur,
      {"External id": ext, "correlation": corr, "device": 0, "stream": stream,
       "grid": [128, 1, 1], "block": [256, 1, 1]})
    ev.append({"ph": "s", "id": corr, "pid": PID, "tid": TID, "ts": round(BASE + ts, 3),
               "cat": "ac2g", "name": "ac2g"})
    ev.append({"ph": "f", "id": corr, "pid": 0, "tid": stream, "ts": round(BASE + k_start, 3),
               "cat": "ac2g", "name": "ac2g", "bp": "e"})

ext = 1
for step in (1, 2, 3):
    s0 = t
    jitter = (step - 2) * 7.125
    # data copy
    X("cpu_op", "aten::to", PID, TID, t + 5, 60, {"External id": ext, "Input Dims": [[64, 784]]})
    launch("aten::to", "Memcpy HtoD (Pageable -> Device)", t + 20, 30, t + 40, 45.5 + jitter, ext,
           cat="gpu_memcpy", api="cudaMemcpyAsync", stream=7)
    ext += 1
    t += 80
    for layer, (m, n) in enumerate(((784, 512), (512, 256), (256, 10))):
        X("cpu_op", "aten::linear", PID, TID, t, 95, {"External id": ext, "Input Dims": [[64, m], [n, m], [n]]})
        X("cpu_op", "aten::addmm", PID, TID, t + 10, 80, {"External id": ext + 1})
        launch("aten::addmm", "ampere_sgemm_128x64_tn" if m > 300 else "ampere_sgemm_32x32_sliced1x4_tn",
               t + 25, 12.5, t + 90, 120.25 + 10 * (2 - layer) + jitter, ext + 1)
        ext += 2
        t += 100
        if layer < 2:
            X("cpu_op", "aten::relu", PID, TID, t, 40, {"External id": ext})
            launch("aten::relu", "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
                   t + 8, 10, t + 60, 8.75, ext)
            ext += 1
            t += 50
    X("cpu_op", "aten::zero_", PID, TID, t, 30, {"External id": ext})
    launch("aten::zero_", "Memset (Device)", t + 5, 9, t + 40, 2.5, ext, cat="gpu_memset", api="cudaMemsetAsync", stream=20)
    ext += 1
    t += 40
    X("cuda_runtime", "cudaStreamSynchronize", PID, TID, t, 150, {"correlation": 0})
    t += 160
    X("user_annotation", "ProfilerStep#%d" % step, PID, TID, s0, t - s0, {"External id": ext})
    ext += 1
    t += 20

meta = [
    {"name": "process_name", "ph": "M", "ts": round(BASE, 3), "pid": PID, "tid": 0, "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": round(BASE, 3), "pid": PID, "tid": 0, "args": {"labels": "CPU"}},
    {"name": "process_name", "ph": "M", "ts": round(BASE, 3), "pid": 0, "tid": 0, "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": round(BASE, 3), "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
    {"name": "process_sort_index", "ph": "M", "ts": round(BASE, 3), "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
    {"name": "thread_name", "ph": "M", "ts": round(BASE, 3), "pid": PID, "tid": TID, "args": {"name": "thread 4242 (python3)"}},
    {"name": "thread_name", "ph": "M", "ts": round(BASE, 3), "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
    {"name": "thread_name", "ph": "M", "ts": round(BASE, 3), "pid": 0, "tid": 20, "args": {"name": "stream 20 "}},
    {"ph": "X", "cat": "Trace", "ts": round(BASE, 3), "dur": round(t, 3), "pid": "Spans", "tid": "PyTorch Profiler",
     "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
]
doc = {"schemaVersion": 1,
       "deviceProperties": [{"id": 0, "name": "Example GPU", "totalGlobalMem": 42297524224, "numSms": 108}],
       "traceEvents": ev + meta, "traceName": "example.pt.trace.json", "displayTimeUnit": "ms"}
text = json.dumps(doc, indent=1)
# Kineto writes ts with exactly 3 decimals; json.dumps prints shortest floats, so fix them up textually
import re
text = re.sub(r'"(ts|dur)": (\d+(?:\.\d+)?)', lambda m: '"%s": %.3f' % (m.group(1), float(m.group(2))), text)
sys.stdout.write(text + "\n")
