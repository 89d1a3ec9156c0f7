/* vendor_names.c: names the vendors' profiler readers interpret alike. */
#include "convert/read/vendor_names.h"
#include "convert/model/model.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

int64_t tp_vendor_step_number(const char *s, size_t n)
{
    size_t i = n;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == n || n - i > 12)
        return -1;
    int64_t v = 0;
    for (size_t k = i; k < n; k++)
        v = v * 10 + (s[k] - '0');
    while (i > 0 && strchr(" _#:=-", s[i - 1]))
        i--;
    static const char *const words[] = {"step", "iteration", "iter"};
    for (size_t w = 0; w < 3; w++) {
        size_t m = strlen(words[w]);
        if (i >= m && strncasecmp(s + i - m, words[w], m) == 0)
            return v;
    }
    return -1;
}

size_t tp_vendor_api_name_len(const char *s, size_t n)
{
    size_t i = n;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i < n && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
        return i - 2;
    return n;
}

uint8_t tp_vendor_mtia_device_kind(const char *name)
{
    if (strncmp(name, "dma", 3) == 0)
        return TP_KIND_MEMCPY;
    if (strcmp(name, "event_wait") == 0 || strcmp(name, "event_record") == 0)
        return TP_KIND_SYNC;
    return TP_KIND_KERNEL;
}
