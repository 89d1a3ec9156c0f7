#!/usr/bin/env python3
"""rocprof_recount.py BIN FILE: the rocprof reader's numbers against a plain
recount of the rocprofv3 JSON document (the method of tests/vendor/test_rocprof.c
and docs/formats/rocprof.md).

Recounted with Python's json module, for every entry of "rocprofiler-sdk-tool":
  kernels  per GPU (the dispatch's agent's gpu_index) and name (kernel_symbols'
           formatted_kernel_name, else demangled_kernel_name, else kernel_name):
           count and sum(end_timestamp - start_timestamp)
  copies   per GPU end and operation name (strings.buffer_records[kind].operations[op]):
           count, sum of durations and of bytes
  API calls: the records of hip_api, hsa_api and rccl_api; markers: of marker_api
and compared with `BIN convert FILE` (device events by pid = the GPU's number,
times as exact decimals of microseconds) and `BIN stats --json FILE`.
Prints "rocprof recount: OK ..." and exits 0 when every number is equal."""
import decimal, gzip, json, os, subprocess, sys, tempfile

binary, path = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
want, api, markers = {}, 0, 0
def add(key, n, dur, nbytes=0):
    a = want.setdefault(key, [0, 0, 0]); a[0] += n; a[1] += dur; a[2] += nbytes
for e in doc["rocprofiler-sdk-tool"]:
    gpu = {a["id"]["handle"]: a.get("gpu_index", a.get("logical_node_type_id")) for a in e.get("agents", []) if a.get("type") == 2}
    names = {}
    for s in e.get("kernel_symbols", []):
        names[s["kernel_id"]] = s.get("formatted_kernel_name") or s.get("demangled_kernel_name") or s.get("kernel_name")
    ops = e.get("strings", {}).get("buffer_records", [])
    br = e.get("buffer_records", {})
    for r in br.get("kernel_dispatch", []):
        di = r["dispatch_info"]
        add(("kernel", gpu[di["agent_id"]["handle"]], names[di["kernel_id"]]), 1, r["end_timestamp"] - r["start_timestamp"])
    for r in br.get("memory_copy", []):
        g = gpu.get(r["dst_agent_id"]["handle"], gpu.get(r["src_agent_id"]["handle"]))
        add(("memcpy", g, ops[r["kind"]]["operations"][r["operation"]]), 1, r["end_timestamp"] - r["start_timestamp"], r.get("bytes", 0))
    api += sum(len(br.get(k, [])) for k in ("hip_api", "hsa_api", "rccl_api"))
    markers += len(br.get("marker_api", []))

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.json")
    subprocess.run([binary, "convert", "-q", path, "-o", out], check=True)
    trace = json.load(open(out), parse_float=decimal.Decimal)
    st = json.loads(subprocess.run([binary, "stats", "--json", path], check=True, capture_output=True).stdout)
ns = lambda v: int(decimal.Decimal(v) * 1000)
got, got_api, got_markers, flows = {}, 0, 0, 0
for e in trace["traceEvents"]:
    cat, a = e.get("cat"), e.get("args", {})
    if e.get("ph") == "X" and cat in ("kernel", "gpu_memcpy"):
        kind = "kernel" if cat == "kernel" else "memcpy"
        g = got.setdefault((kind, e["pid"], e["name"]), [0, 0, 0])
        g[0] += 1; g[1] += ns(e["dur"]); g[2] += a.get("bytes", 0)
        flows += 1 if e.get("flow_in") else 0
    elif cat in ("cuda_runtime", "cuda_driver"):
        got_api += 1
    elif cat == "user_annotation":
        got_markers += 1
bad = ["%s: JSON %s, tracepress %s" % (k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got), key=str)
       if want.get(k) != got.get(k)]
if api != got_api: bad.append("API calls: JSON %d, tracepress %d" % (api, got_api))
if markers != got_markers: bad.append("markers: JSON %d, tracepress %d" % (markers, got_markers))
kern = [v for k, v in want.items() if k[0] == "kernel"]
if st["kernels_only"]["instances"] != sum(v[0] for v in kern) or st["kernels_only"]["total_ns"] != sum(v[1] for v in kern):
    bad.append("stats kernels_only %s" % st["kernels_only"])
for b in bad[:20]:
    print(b)
if bad:
    sys.exit(1)
print("rocprof recount: OK %d names, %d kernels %d ns, %d copies, %d API calls, %d markers, %d launch flows" % (
    len(want), sum(v[0] for v in kern), sum(v[1] for v in kern), sum(v[0] for k, v in want.items() if k[0] != "kernel"),
    api, markers, flows))
