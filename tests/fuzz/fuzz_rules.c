/* fuzz_rules.c: libFuzzer target for the category rules parser and matcher
 * (`--categories FILE`, report/analysis/category_rules.c): the input is the
 * rule file; when it parses, every rule's pattern (and a few fixed names) is
 * looked up as a kernel name and as a leaf op name, and tp_cat_match must
 * answer what trying the rules one by one in order answers (the indexed
 * matcher of convert/base/globset.h against the definition); a bad file must
 * give a one-line reason.  Built by `make fuzz`. */
#include "report/rules/cat_rules.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* docs/REPORT.md "Op categories": the first rule that matches, else "other" */
static uint32_t naive(const tp_cat_rules *r, uint8_t kind, const char *name, const char *leaf)
{
    const char *kn = kind == TP_KIND_MEMCPY ? "memcpy" : kind == TP_KIND_MEMSET ? "memset" : "kernel";
    for (size_t i = 0; i < r->n; i++) {
        const tp_cat_rule *u = &r->rules[i];
        bool hit = u->on == TP_CAT_ON_KIND     ? strcmp(u->pattern, kn) == 0
                   : u->on == TP_CAT_ON_KERNEL ? fnmatch(u->pattern, name, FNM_CASEFOLD) == 0
                                               : leaf && fnmatch(u->pattern, leaf, 0) == 0;
        if (hit)
            return u->category;
    }
    return r->other;
}

static void check(const tp_cat_rules *r, const char *name)
{
    static const uint8_t kinds[] = {TP_KIND_KERNEL, TP_KIND_MEMCPY, TP_KIND_MEMSET};
    for (int k = 0; k < 3; k++) {
        if (tp_cat_match(r, kinds[k], name, NULL) != naive(r, kinds[k], name, NULL) ||
            tp_cat_match(r, kinds[k], name, name) != naive(r, kinds[k], name, name) ||
            tp_cat_match(r, kinds[k], "x", name) != naive(r, kinds[k], "x", name)) {
            fprintf(stderr, "rules: \"%s\" matched unlike the rules in order\n", name);
            abort();
        }
    }
}

static int memfd = -1;
static char in_path[64]; /* /proc/self/fd/N: the rule file, as --categories names it */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        if ((memfd = memfd_create("tp-fuzz-rules", 0)) < 0)
            abort();
        snprintf(in_path, sizeof in_path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        abort();
    tp_cat_rules r;
    char err[400];
    if (tp_cat_rules_load(&r, in_path, err, sizeof err) != 0) {
        if (!err[0] || strchr(err, '\n'))
            abort(); /* the reason is one line */
        return 0;
    }
    static const char *const fixed[] = {"", "a", "A", "ncclKernel_AllReduce", "aten::mm", "ab*c", "[x]", "\\"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        check(&r, fixed[i]);
    /* each user rule's pattern as a name, and with its first and last byte cut (the built-in rules follow) */
    static size_t builtin = SIZE_MAX;
    if (builtin == SIZE_MAX) {
        tp_cat_rules b;
        tp_cat_rules_load(&b, NULL, err, sizeof err);
        builtin = b.n;
        tp_cat_rules_free(&b);
    }
    size_t user = r.n - builtin;
    for (size_t i = 0; i < user && i < 200; i++) {
        const char *p = r.rules[i].pattern;
        check(&r, p);
        size_t n = strlen(p);
        if (n > 1) {
            char cut[256];
            snprintf(cut, sizeof cut, "%.*s", (int)(n - 2 > 250 ? 250 : n - 2), p + 1);
            check(&r, cut);
        }
    }
    tp_cat_rules_free(&r);
    return 0;
}
