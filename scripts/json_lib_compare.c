/* json_lib_compare.c: how fast do Debian's JSON libraries read a trace?
 * Measures the alternatives to tracepress's own tokenizer on the same file
 * (see docs/JSON_READER.md):
 *   yajl  - streaming SAX parser (libyajl-dev), callbacks only count events
 *   jsonc - json-c's tokenizer, which builds the whole document tree
 * usage: json_lib_compare yajl|jsonc FILE   (prints events seen)
 * Build: make build/json_lib_compare (needs libyajl-dev libjson-c-dev). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

static long depth, events;

static int on_start_map(void *ctx)
{
    (void)ctx;
    if (++depth == 3) /* {"traceEvents":[ {event} */
        events++;
    return 1;
}
static int on_end_map(void *ctx) { (void)ctx; depth--; return 1; }
static int on_start_array(void *ctx) { (void)ctx; depth++; return 1; }
static int on_end_array(void *ctx) { (void)ctx; depth--; return 1; }

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: json_lib_compare yajl|jsonc FILE\n"), 1;
    FILE *f = fopen(argv[2], "rb");
    if (!f)
        return perror(argv[2]), 1;
    static unsigned char buf[1 << 20];
    size_t n;
    if (!strcmp(argv[1], "yajl")) {
        yajl_callbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.yajl_start_map = on_start_map;
        cb.yajl_end_map = on_end_map;
        cb.yajl_start_array = on_start_array;
        cb.yajl_end_array = on_end_array;
        yajl_handle h = yajl_alloc(&cb, NULL, NULL);
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            if (yajl_parse(h, buf, n) != yajl_status_ok)
                return fprintf(stderr, "yajl: parse error\n"), 2;
        if (yajl_complete_parse(h) != yajl_status_ok)
            return fprintf(stderr, "yajl: parse error at end\n"), 2;
        yajl_free(h);
    } else {
        json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
        json_object *root = NULL;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
            root = json_tokener_parse_ex(tok, (const char *)buf, (int)n);
            enum json_tokener_error e = json_tokener_get_error(tok);
            if (e != json_tokener_continue && e != json_tokener_success)
                return fprintf(stderr, "json-c: %s\n", json_tokener_error_desc(e)), 2;
        }
        json_object *te;
        if (root && json_object_object_get_ex(root, "traceEvents", &te))
            events = (long)json_object_array_length(te);
        json_object_put(root);
        json_tokener_free(tok);
    }
    fclose(f);
    printf("%ld events\n", events);
    return 0;
}
