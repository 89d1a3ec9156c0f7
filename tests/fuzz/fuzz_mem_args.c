/* fuzz_mem_args.c: libFuzzer target for the allocator events' args
 * (convert/model/mem_event.h): the one-pass reader of flat integer objects
 * must give exactly what the JSON tree gives, or hand the text to the tree;
 * an args text that is not JSON is refused by both.  Built by `make fuzz`. */
#include "convert/model/mem_event.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tp_trace t;
    static tp_mem_reader *r;
    if (!r) {
        tp_trace_init(&t);
        r = tp_mem_reader_new(&t);
    }
    const char *s = (const char *)data;
    tp_mem_event fast, tree;
    int a = tp_mem_args_parse(r, s, size, false, &fast);
    int b = tp_mem_args_parse(r, s, size, true, &tree);
    if (a != b)
        abort();
    if (a == 0 && (fast.type != tree.type || fast.id != tree.id || fast.bytes != tree.bytes || fast.addr != tree.addr ||
                   fast.allocated != tree.allocated || fast.reserved != tree.reserved ||
                   fast.has_addr != tree.has_addr || fast.has_levels != tree.has_levels))
        abort();
    return 0;
}
