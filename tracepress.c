/* tracepress.c: main(): dispatch to the command table in commands.c. */
#include "convert/base/cli.h"
#include "convert/io/output.h"

#include <stdio.h>
#include <string.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

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
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
                return tp_print_help(name);
        /* every command writes its files through tp_out: a signal removes
         * the temporary files of all of them (report, diff: PDF, PNGs, ...) */
        tp_out_install_signal_cleanup();
        return c->run(argc - 1, argv + 1);
    }
    fprintf(stderr, TP_PROG ": unknown command '%s'\n\n", name);
    tp_print_usage(stderr);
    return TP_EXIT_USAGE;
}
