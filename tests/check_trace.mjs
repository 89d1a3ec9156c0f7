// check_trace.mjs: load a converted trace in a real client and lint it.
//   node tests/check_trace.mjs OUT.json[.gz]
// 1. Chrome DevTools' trace engine (@paulirish/trace_engine) parses it with
//    no exception; its per-thread entry counts must equal the X/instant
//    counts of the file.
// 2. Structural lint of what Perfetto's JSON importer does: numeric pid/tid
//    only, slices per thread properly nested (sorted by ts, longer first),
//    every v2 flow (bind_id) has one flow_out and at least one flow_in.
// Prints one JSON line with the numbers; exits 1 on any problem.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import url from 'node:url';

const file = process.argv[2];
if (!file) { console.error('usage: check_trace.mjs TRACE'); process.exit(2); }
const here = path.dirname(url.fileURLToPath(import.meta.url));
const mods = process.env.TP_NODE_MODULES || path.join(here, '..', 'build', 'node', 'node_modules');
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const doc = JSON.parse(buf.toString('utf8'));
const events = Array.isArray(doc) ? doc : doc.traceEvents;
const problems = [];

// ---- structural lint ----
const perThread = new Map(); // "pid:tid" -> [{ts,dur}]
const counts = new Map();    // "pid:tid" -> number of X + thread instants
const flowOut = new Map(), flowIn = new Map();
let nonNumeric = 0;
for (const e of events) {
  if (typeof e.pid !== 'number' || (e.tid !== undefined && typeof e.tid !== 'number')) nonNumeric++;
  const key = `${e.pid}:${e.tid}`;
  if (e.ph === 'X') {
    if (!perThread.has(key)) perThread.set(key, []);
    // ts/dur are written with exactly 3 decimals: compare as integer ns
    perThread.get(key).push({ ts: Math.round(e.ts * 1000), dur: Math.round(e.dur * 1000), name: e.name });
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  if (e.bind_id !== undefined) {
    const m = e.flow_out ? flowOut : flowIn;
    m.set(e.bind_id, (m.get(e.bind_id) || 0) + 1);
  }
}
if (nonNumeric) problems.push(`${nonNumeric} events with non-numeric pid/tid`);
let badNesting = 0;
for (const [key, list] of perThread) {
  list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const stack = [];
  for (const s of list) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= s.ts &&
           !(stack[stack.length - 1].dur === 0 && s.dur === 0 && stack[stack.length - 1].ts === s.ts)) stack.pop();
    if (stack.length && s.ts + s.dur > stack[stack.length - 1].ts + stack[stack.length - 1].dur) {
      if (badNesting < 5) problems.push(`improper nesting on ${key}: ${s.name} @${s.ts}`);
      badNesting++;
      continue;
    }
    stack.push(s);
  }
}
let flowsOk = 0;
for (const [id, n] of flowOut) {
  if (n !== 1) problems.push(`bind_id ${id}: ${n} flow_out`);
  if (!flowIn.has(id)) problems.push(`bind_id ${id}: no flow_in`); else flowsOk++;
}
for (const id of flowIn.keys()) if (!flowOut.has(id)) problems.push(`bind_id ${id}: flow_in without flow_out`);

// ---- the real client ----
globalThis.DOMRect ??= class { constructor(x = 0, y = 0, w = 0, h = 0) { this.x = x; this.y = y; this.width = w; this.height = h; } };
let engine = { loaded: false };
try {
  const Trace = await import(url.pathToFileURL(path.join(mods, '@paulirish', 'trace_engine', 'models', 'trace', 'trace.js')).href);
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const pt = model.parsedTrace();
  let threads = 0, entries = 0, mismatched = 0;
  for (const [pid, p] of pt.data.Renderer.processes) {
    for (const [tid, th] of p.threads) {
      threads++;
      const n = th.entries.filter(x => x.ph === 'X').length;
      entries += n;
      const want = counts.get(`${pid}:${tid}`) || 0;
      if (n !== want) {
        mismatched++;
        if (mismatched <= 5) problems.push(`trace engine: ${pid}:${tid} has ${n} slices, file has ${want}`);
      }
    }
  }
  engine = { loaded: true, processes: pt.data.Renderer.processes.size, threads, entries, mismatched };
} catch (err) {
  problems.push(`trace engine failed: ${err && err.stack ? err.stack.split('\n')[0] : err}`);
}
const fileSlices = [...counts.values()].reduce((a, b) => a + b, 0);
console.log(JSON.stringify({ file: path.basename(file), events: events.length, slices: fileSlices,
  tracks: perThread.size, bad_nesting: badNesting, flows: flowOut.size, flows_bound: flowsOk, engine, problems }));
process.exit(problems.length ? 1 : 0);
