/* tracepress.c: main(): dispatch to the command table in commands.c. */
#include "convert/base/cli.h"
#include "convert/io/output.h"

#include <stdio.h>
#include <string.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

/* The index of "--" (which ends the options), or argc. */
static int end_of_options(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return i;
    return argc;
}

/* Every argument after "--" is a file, whatever it looks like: "--" is
 * dropped and a name starting with '-' becomes "./-name" (the same file), so
 * no command's option loop can take it for an option.  "-" stays standard
 * input.  The new argv lives until exit. */
static char **after_double_dash(int argc, char **argv, int dd)
{
    char **v = tp_xcalloc((size_t)argc, sizeof *v);
    int o = 0;
    for (int i = 0; i < argc; i++) {
        if (i == dd)
            continue;
        if (i > dd && argv[i][0] == '-' && argv[i][1]) {
            size_t n = strlen(argv[i]) + 3;
            v[o] = tp_xmalloc(n);
            snprintf(v[o], n, "./%s", argv[i]);
            o++;
        } else {
            v[o++] = argv[i];
        }
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        tp_print_usage(stderr);
        return TP_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("tracepress %s\n", TP_VERSION);
        return TP_EXIT_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        tp_print_usage(stdout);
        return TP_EXIT_OK;
    }
    for (const tp_command *const *cp = tp_commands; *cp; cp++) {
        const tp_command *c = *cp;
        if (strcmp(c->name, name) != 0)
            continue;
        int n = end_of_options(argc, argv);
        for (int i = 2; i < n; i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
                return tp_print_help(name);
        if (n < argc)
            argv = after_double_dash(argc--, argv, n);
        /* every command writes its files through tp_out: a signal removes
         * the temporary files of all of them (report, diff: PDF, PNGs, ...) */
        tp_out_install_signal_cleanup();
        return c->run(argc - 1, argv + 1);
    }
    fputs(TP_PROG ": unknown command '", stderr);
    tp_put_printable(stderr, name); /* one line, no terminal control from the command line */
    fputs("'\n\n", stderr);
    tp_print_usage(stderr);
    return TP_EXIT_USAGE;
}
