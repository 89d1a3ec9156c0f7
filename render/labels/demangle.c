/* demangle.c: C++ names through the C++ runtime's demangler (demangle.h). */
#include "render/labels/demangle.h"

#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (cxxabi.h is C++ only; the symbol has C linkage). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DEMANGLE_MAX (1u << 16) /* longer "names" are not symbols: keep them, and the demangler's recursion bounded */

char *tp_demangle(const char *name)
{
    if (!name)
        return NULL;
    if (name[0] == '_' && name[1] == '_' && name[2] == 'Z')
        name++;
    if (name[0] != '_' || name[1] != 'Z' || strnlen(name, DEMANGLE_MAX) >= DEMANGLE_MAX)
        return NULL;
    int status = 0;
    char *r = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0 || !r || !*r) {
        free(r);
        return NULL;
    }
    return r;
}
