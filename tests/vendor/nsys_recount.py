#!/usr/bin/env python3
"""nsys_recount.py BIN DB: the nsys reader's numbers against plain SQL over the
export (the method of tests/vendor/test_nsys.c and docs/formats/nsys.md).

Recounted with SQL, per GPU (deviceId):
  kernels  per demangled name: SELECT deviceId, demangledName, count(*), sum(end-start)
           FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end >= start GROUP BY 1, 2
  memcpy   per copy kind:      count(*), sum(bytes), sum(end-start) of CUPTI_ACTIVITY_KIND_MEMCPY
  memset:                      count(*), sum(bytes), sum(end-start) of CUPTI_ACTIVITY_KIND_MEMSET
  API calls: the calls of CUPTI_ACTIVITY_KIND_RUNTIME (and _DRIVER): one per (globalTid,
           correlationId, name without its _vNNNN suffix), as newer exports write some calls
           twice (an eventClass 67 row around the entry point's row)
  NVTX: count(*) of NVTX_EVENTS WHERE eventType NOT IN (33, 39, 75, 76)
and compared with `BIN convert DB` (the Chrome JSON: device events by pid =
deviceId, times as exact decimals of microseconds) and `BIN stats --json`.
Prints "nsys recount: OK ..." and exits 0 when every number is equal."""
import decimal, json, sqlite3, subprocess, sys, tempfile, os

binary, db = sys.argv[1], sys.argv[2]
con = sqlite3.connect("file:%s?immutable=1" % db, uri=True)
q = lambda s: con.execute(s).fetchall()
tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type='table'")}
strings = dict(q("SELECT id, value FROM StringIds"))
NAMES = ["Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array",
         "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
         "Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"]
want = {}
def add(key, n, total, nbytes=0):
    a = want.setdefault(key, [0, 0, 0]); a[0] += n; a[1] += total; a[2] += nbytes
if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
    for dev, name, n, tot in q("SELECT deviceId, demangledName, count(*), sum(end-start) FROM "
                               "CUPTI_ACTIVITY_KIND_KERNEL WHERE end >= start GROUP BY 1, 2"):
        add(("kernel", dev, strings[name]), n, tot)
if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
    for dev, kind, n, tot, b in q("SELECT deviceId, copyKind, count(*), sum(end-start), sum(bytes) FROM "
                                  "CUPTI_ACTIVITY_KIND_MEMCPY WHERE end >= start GROUP BY 1, 2"):
        add(("memcpy", dev, "[CUDA memcpy %s]" % (NAMES[kind] if 0 <= kind < len(NAMES) else "Unknown")), n, tot, b)
if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
    for dev, n, tot, b in q("SELECT deviceId, count(*), sum(end-start), sum(bytes) FROM "
                            "CUPTI_ACTIVITY_KIND_MEMSET WHERE end >= start GROUP BY 1"):
        add(("memset", dev, "[CUDA memset]"), n, tot, b)
import re
api = sum(len({(tid, corr, re.sub(r"_v[0-9]+$", "", name)) for tid, corr, name in
               q("SELECT r.globalTid, r.correlationId, s.value FROM %s r JOIN StringIds s ON s.id = r.nameId" % t)})
          for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER") if t in tables)
nvtx = q("SELECT count(*) FROM NVTX_EVENTS WHERE eventType NOT IN (33, 39, 75, 76)")[0][0] if "NVTX_EVENTS" in tables else 0

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.json")
    subprocess.run([binary, "convert", "-q", db, "-o", out], check=True)
    trace = json.load(open(out), parse_float=decimal.Decimal)
    st = json.loads(subprocess.run([binary, "stats", "--json", db], check=True, capture_output=True).stdout)
ns = lambda v: int(decimal.Decimal(v) * 1000)
got, got_api, got_nvtx, flows = {}, 0, 0, 0
for e in trace["traceEvents"]:
    cat, a = e.get("cat"), e.get("args", {})
    if e.get("ph") == "X" and cat in ("kernel", "gpu_memcpy", "gpu_memset"):
        kind = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}[cat]
        g = got.setdefault((kind, e["pid"], e["name"]), [0, 0, 0])
        g[0] += 1; g[1] += ns(e["dur"]); g[2] += a.get("bytes", 0) if kind != "kernel" else 0
        flows += 1 if e.get("flow_in") else 0
    elif cat in ("cuda_runtime", "cuda_driver"):
        got_api += 1
    elif cat == "user_annotation":
        got_nvtx += 1
bad = []
for k in sorted(set(want) | set(got), key=str):
    if want.get(k) != got.get(k):
        bad.append("%s: SQL %s, tracepress %s" % (k, want.get(k), got.get(k)))
if api != got_api: bad.append("API calls: SQL %d, tracepress %d" % (api, got_api))
if nvtx != got_nvtx: bad.append("NVTX events: SQL %d, tracepress %d" % (nvtx, got_nvtx))
kern = [v for k, v in want.items() if k[0] == "kernel"]
if st["kernels_only"]["instances"] != sum(v[0] for v in kern) or st["kernels_only"]["total_ns"] != sum(v[1] for v in kern):
    bad.append("stats kernels_only %s, SQL %d %d" % (st["kernels_only"], sum(v[0] for v in kern), sum(v[1] for v in kern)))
for b in bad:
    print(b)
if bad:
    sys.exit(1)
print("nsys recount: OK %d names, %d kernels, %d copies, %d API calls, %d NVTX, %d launch flows" % (
    len(want), sum(v[0] for v in kern), sum(v[0] for k, v in want.items() if k[0] != "kernel"), api, nvtx, flows))
