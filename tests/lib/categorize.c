/* categorize.c: see categorize.h. */
#include "tests/lib/categorize.h"
#include "report/analysis/categories.h"

#include <string.h>

const char *tp_test_category(const char *name)
{
    static tp_cat_rules rules; /* the built-in rules, loaded once, kept for the run */
    static int loaded;
    if (!loaded) {
        char err[256];
        tp_cat_rules_load(&rules, NULL, err, sizeof err);
        loaded = 1;
    }
    if (!name)
        return "other";
    uint8_t kind = strncmp(name, "Memcpy", 6) == 0   ? TP_KIND_MEMCPY
                   : strncmp(name, "Memset", 6) == 0 ? TP_KIND_MEMSET
                                                     : TP_KIND_KERNEL;
    return rules.names[tp_cat_match(&rules, kind, name, NULL)];
}
