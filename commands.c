/* commands.c: the command table.  Adding a subcommand: write its run
 * function in the folder it belongs to (convert/, report/), declare it in
 * convert/base/cli.h, add a row here with its help text, and a line to the
 * README's command table. */
#include "convert/base/cli.h"
#include "convert/pipeline/pipeline.h"

#include <stdio.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

const tp_command tp_commands[] = {
    {"convert", "convert a trace to normalised Chrome Trace Event JSON (Perfetto-ready)",
     "usage: tracepress convert INPUT -o OUTPUT[.json|.json.gz] [options]\n"
     "\n"
     "Reads any supported trace (see `tracepress formats`) and writes one Chrome\n"
     "Trace Event JSON file that loads in Perfetto and chrome://tracing: numeric\n"
     "pids/tids with names, timestamps rebased to the trace start (the offset is\n"
     "kept in baseTimeNanoseconds), properly nested slices, launch flows bound to\n"
     "their slices.  An output name ending in .gz is written gzip'ed.  The output\n"
     "is written to a temporary file and renamed when complete.\n"
     "\n"
     "An output name ending in .pftrace (or .perfetto-trace, each optionally .gz)\n"
     "is written as a Perfetto protobuf trace instead: the same tracks, slices,\n"
     "instants, counters and flows, absolute timestamps in ns; Perfetto's UI loads\n"
     "it with far less memory than JSON (use it for traces over ~1 GB of JSON).\n"
     "Async events are not written there (counted in the summary line); --split\n"
     "writes JSON only.  See docs/PFTRACE.md.\n"
     "\n"
     "options:\n"
     "  -o, --output FILE   output file (required; '-' writes the JSON to standard output)\n"
     "  --split steps       one file per step: OUTPUT.step-N.json[.gz], each a complete trace\n"
     "  --split size=SIZE   files of about SIZE each (500MB, 1GB): OUTPUT.part-NNN.json[.gz]\n"
     "  -q, --quiet         no summary line on stderr\n"
     TP_LOAD_OPTIONS_HELP
     "\n"
     "A summary line on stderr says: events in, events out, repaired, dropped (with\n"
     "reasons), warnings, size and time; a warning follows when an output passes\n"
     "500 MB or a million events, 2 GB for .pftrace (Perfetto's web UI runs out of\n"
     "memory around 1-2 GB of JSON).  An existing OUTPUT is replaced; the input is\n"
     "never overwritten.  "
     "With --split, either every part is written or none is.\n" TP_EXIT_CODES_HELP
     "\nexample: tracepress convert worker0.pt.trace.json.gz -o worker0.perfetto.json.gz\n"
     "         tracepress convert big.pt.trace.json.gz -o big.pftrace\n",
     tp_cmd_convert},
    {"stats", "print events, tracks, steps and the kernel table of a trace",
     "usage: tracepress stats INPUT [--json|--csv] [options]\n"
     "\n"
     "Prints the number of events, tracks and steps, and a table of device kernels\n"
     "(memcpy and memset marked as such) sorted by total time, with count, total,\n"
     "mean, min, max, p10, p50, p90 and standard deviation in nanoseconds, in the\n"
     "layout of `nsys stats`.  Means and percentiles are rounded half away from zero\n"
     "to whole ns; percentiles interpolate linearly between closest ranks (numpy's\n"
     "default); the standard deviation is the population one (numpy's default).\n"
     "\n"
     "options:\n"
     "  --json              one JSON object: format, events, tracks, steps, kernels[]\n"
     "                      (name, kind, count, total_ns, mean_ns, min_ns, max_ns,\n"
     "                      p10_ns, p50_ns, p90_ns, stddev_ns); ETDump input adds\n"
     "                      etdump_inspector (the ExecuTorch Inspector's event blocks)\n"
     "  --csv               the kernel table as CSV (same columns as --json)\n"
     "                      (names: bytes that are not UTF-8 become U+FFFD, as in\n"
     "                      --json and the text table)\n"
     TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
     "\nexample: tracepress stats trace.json.gz --json | jq '.kernels[0]'\n",
     tp_cmd_stats},
    {"report", "write a PDF report, PNG charts, summary.json and summary.md for a trace",
     "usage: tracepress report INPUT [-o DIR] [options]\n"
     "\n"
     "Writes DIR/report.pdf (summary, top kernels, op breakdown, timeline of the\n"
     "median step, statistics, CPU overheads), DIR/png/<chart>.png, DIR/summary.json\n"
     "(schema tracepress.summary/1: headline numbers and tables for dashboards) and\n"
     "DIR/summary.md (Markdown for a pull-request comment).  Every number is\n"
     "defined in docs/REPORT.md.  Outputs are byte-identical for the same input;\n"
     "dates come from SOURCE_DATE_EPOCH or the trace, never the clock.\n"
     "Some formats add their own pages after the summary (ETDump: the ExecuTorch\n"
     "Inspector's event blocks, top operators, time per module with --etrecord;\n"
     "PlaidML: top kernels' temporary memory, the Program Run of one invocation;\n"
     "dv/dt: describe() per kernel and position, GEMM GFLOP/s, CK repetitions).\n"
     "\n"
     "options:\n"
     "  -o, --output DIR    output folder (default: <input base name>.report)\n"
     "  --batch-size N      samples per step: adds throughput (samples/s)\n"
     "  --paper a4|letter   PDF page size (default a4)\n"
     "  --scale S           PNG resolution factor (1 = about 1600 px wide, default)\n"
     "  --invocation N      PlaidML: the ScheduleInvocation of the Program Run page (default 11)\n"
     TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
     "\nexample: tracepress report worker0.pt.trace.json.gz -o out --batch-size 2048\n",
     tp_cmd_report},
    {"diff", "compare two traces: what got slower, with a regression gate for CI",
     "usage: tracepress diff BASE CANDIDATE [-o DIR] [options]\n"
     "\n"
     "Compares two traces of any supported formats: kernels, top-level ops and\n"
     "steps are matched by name (then by shortened kernel name), with count,\n"
     "total and mean in both, the change and the share of the net change each\n"
     "explains; step times with their spread and whether the change of the\n"
     "median is larger than the step-to-step noise.  Writes DIR/diff.md (a\n"
     "pull-request comment), DIR/diff.json (schema tracepress.diff/1),\n"
     "DIR/diff.pdf and DIR/png/changes.png, DIR/png/steps.png.  Definitions:\n"
     "docs/DIFF.md.\n"
     "\n"
     "options:\n"
     "  -o, --output DIR              output folder (default: diff)\n"
     "  --fail-if-slower PCT          exit 3 when the median step time (total device\n"
     "                                time without steps) grew by more than PCT%\n"
     "  --fail-if-kernel-slower PCT   exit 3 when any kernel's total time grew by more\n"
     "                                than PCT% (kernels under --kernel-min-share ignored)\n"
     "  --kernel-min-share PCT        smallest share of device time a kernel needs to be\n"
     "                                gated (default 1)\n"
     "  --scale S                     PNG resolution factor (default 1)\n"
     "  -q, --quiet                   no summary line on stderr\n"
     "load options (applied to both traces):\n" TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
     "\nexample: tracepress diff main.pt.trace.json.gz pr.pt.trace.json.gz -o out --fail-if-slower 5\n",
     tp_cmd_diff},
    {"batch", "convert and report many traces in parallel, incrementally, with an index",
     "usage: tracepress batch INPUT... -o DIR [-j N] [--force] [--shard K/N] [options]\n"
     "       tracepress batch --merge DIR... [-o OUT]\n"
     "\n"
     "INPUT is a file, a folder (walked recursively; files no reader recognises\n"
     "are ignored), a glob pattern or @list.txt (one input per line).  For each\n"
     "trace: DIR/<name>/trace.json.gz (as `convert`) and DIR/<name>/report/ (as\n"
     "`report`).  DIR/index.md, index.pdf and index.json (schema tracepress.batch/1)\n"
     "list every trace with its format, steps, median step, device time, status and\n"
     "links.  A bad trace becomes an error row; the others go on.  Re-runs skip a\n"
     "trace whose content hash and options are unchanged.  Every file is written to\n"
     "a temporary name and renamed; the index is written last.  docs/SCALING.md has\n"
     "recipes for GNU parallel, Slurm and Kubernetes.\n"
     "\n"
     "options:\n"
     "  -o, --output DIR    output folder (required)\n"
     "  -j, --jobs N        traces at once, one worker process each (default: cores)\n"
     "  --force             redo every trace\n"
     "  --shard K/N         only the K-th of N deterministic parts of the inputs;\n"
     "                      the index is DIR/index-K-of-N.*\n"
     "  --merge DIR...      join the shard indexes found in the folders into\n"
     "                      OUT/index.* (OUT: -o, default the first folder)\n"
     "  --batch-size N      samples per step, for throughput in the reports\n"
     "load options (applied to every trace; part of the options hash):\n" TP_LOAD_OPTIONS_HELP
     "\n"
     "Exit codes: 0 every trace ok, 1 usage error, 2 at least one trace failed (or\n"
     "an output could not be written).\n"
     "\nexample: tracepress batch nightly/ -o site -j 8\n",
     tp_cmd_batch},
    {"formats", "list the input formats tracepress reads",
     "usage: tracepress formats\n\nLists every input format: its name (for --format), typical file names,\n"
     "and what it is.  Formats are detected from the file's first bytes.\n",
     tp_cmd_formats},
    {"help", "show help for tracepress or one command",
     "usage: tracepress help [COMMAND]\n", tp_cmd_help},
    {NULL, NULL, NULL, NULL},
};

void tp_print_usage(FILE *f)
{
    fprintf(f, "tracepress %s: fast converter and report generator for ML performance traces\n\n"
               "usage: tracepress COMMAND [options]\n\ncommands:\n",
            TP_VERSION);
    for (const tp_command *c = tp_commands; c->name; c++)
        fprintf(f, "  %-9s %s\n", c->name, c->summary);
    fprintf(f, "\n`tracepress help COMMAND` or `tracepress COMMAND --help` for details.\n" TP_EXIT_CODES_HELP);
}

int tp_cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        tp_print_usage(stdout);
        return TP_EXIT_OK;
    }
    return tp_print_help(argv[1]);
}

