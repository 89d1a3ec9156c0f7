/* TEMPORARY while the foundation lands (removed by the Chrome reader commit). */
#include "cli.h"
#include "formats.h"
#include <stdio.h>
static int ph_probe(const unsigned char *h, size_t n, const char *p) { (void)h; (void)n; (void)p; return 0; }
static int ph_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{ (void)in; (void)t; (void)o; return tp_fail_at(err, "", "chrome reader not yet merged"); }
const tp_format tp_format_chrome = {"chrome", "placeholder", "", ph_probe, ph_read};
int tp_cmd_convert(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "not yet\n"); return 2; }
int tp_cmd_stats(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "not yet\n"); return 2; }
