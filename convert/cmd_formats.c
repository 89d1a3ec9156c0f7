/* cmd_formats.c: `tracepress formats`. */
#include "convert/base/cli.h"
#include "convert/read/formats.h"

#include <stdio.h>

static int tp_cmd_formats(int argc, char **argv)
{
    if (argc > 1)
        return tp_usage_error(argv[0], "takes no arguments");
    printf("%-10s %-34s %s\n", "name", "typical files", "description");
    for (size_t i = 0; tp_formats[i]; i++)
        printf("%-10s %-34s %s\n", tp_formats[i]->name, tp_formats[i]->extensions, tp_formats[i]->description);
    return TP_EXIT_OK;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_formats = {"formats", "list the input formats tracepress reads",
    "usage: tracepress formats\n\nLists every input format: its name (for --format), typical file names,\n"
    "and what it is.  Formats are detected from the file's first bytes.\n",
    tp_cmd_formats, false};
