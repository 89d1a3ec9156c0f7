/* commands.c: the command table.  Adding a subcommand: write its run
 * function in the folder it belongs to (convert/, report/), declare it in
 * convert/cli.h, add a row here with its help text, and a line to the
 * README's command table. */
#include "cli.h"

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
     "options:\n"
     "  -o, --output FILE   output file (required; '-' for stdout)\n"
     "  --format NAME       input format instead of detecting it\n"
     "  --steps A:B         keep only iterations A..B (ProfilerStep#A..#B); A: or :B open-ended\n"
     "  --etrecord FILE     ETDump: ExecuTorch ETRecord for op types, modules, stack traces\n"
     "  --time-scale UNIT   ETDump: tick unit ns (default), us, ms, s or cycles:HZ\n"
     "  --strict            treat lenient repairs (bad UTF-8, trailing commas, ...) as errors\n"
     "  --force             overwrite OUTPUT if it exists\n"
     "  -q, --quiet         no summary line on stderr\n"
     "\n"
     "A summary line on stderr says: events in, events out, repaired, dropped (with\n"
     "reasons), and the time taken.\n" TP_EXIT_CODES_HELP
     "\nexample: tracepress convert worker0.pt.trace.json.gz -o worker0.perfetto.json.gz\n",
     tp_cmd_convert},
    {"stats", "print events, tracks, steps and the kernel table of a trace",
     "usage: tracepress stats INPUT [--json] [--format NAME] [--steps A:B] [--strict]\n"
     "\n"
     "Prints the number of events, tracks and steps, and a table of device kernels\n"
     "(memcpy and memset marked as such) sorted by total time, with count, total,\n"
     "mean, min, max, p10, p50 and p90 in nanoseconds.  Percentiles interpolate\n"
     "linearly between closest ranks (numpy's default).\n"
     "\n"
     "options:\n"
     "  --json              one JSON object: format, events, tracks, steps, kernels[]\n"
     "                      (name, kind, count, total_ns, mean_ns, min_ns, max_ns,\n"
     "                      p10_ns, p50_ns, p90_ns)\n"
     "  --format NAME       input format instead of detecting it\n"
     "  --steps A:B         only iterations A..B\n"
     "  --etrecord FILE     ETDump: ExecuTorch ETRecord (op types, modules, time per module)\n"
     "  --time-scale UNIT   ETDump: tick unit ns (default), us, ms, s or cycles:HZ\n"
     "  (ETDump input: --json adds etdump_inspector, the ExecuTorch Inspector's event blocks)\n"
     "  --strict            lenient repairs become errors\n" TP_EXIT_CODES_HELP
     "\nexample: tracepress stats trace.json.gz --json | jq '.kernels[0]'\n",
     tp_cmd_stats},
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

