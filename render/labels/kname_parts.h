/* kname_parts.h: the pieces of one name that kname.c finds and
 * kname_set.c uses to tell names of a set apart (rules in kname.h). */
#ifndef TP_KNAME_PARTS_H
#define TP_KNAME_PARTS_H

#include <stddef.h>

typedef struct tp_kname_info {
    char *full;  /* demangled, or a copy of the name */
    char *base;  /* rules 0-3 */
    char *targs; /* text from the '<' of the base's own template argument list, or NULL */
} tp_kname_info;

tp_kname_info tp_kname_info_of(const char *name);
void tp_kname_info_free(tp_kname_info *k);
/* Top-level template arguments of the first <...> of s (malloc'ed strings). */
size_t tp_kname_targs(const char *s, char ***out);
/* The name that says what a template argument is (rule 4). */
char *tp_kname_informative(const char *arg);
void tp_kname_free_list(char **v, size_t n);
/* Characters (UTF-8 code points) of s. */
size_t tp_kname_chars(const char *s);
/* s in max characters as its head, "…" and the part from a break before
 * character diff on, where it differs from another label (rule 5). */
char *tp_kname_head_mid(const char *s, size_t diff, size_t max_chars);

#endif
