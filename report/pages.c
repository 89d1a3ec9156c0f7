/* pages.c: placeholder until the pages land. */
#include "pages.h"
#include <stdlib.h>
int tp_report_pages(const tp_summary *s, const char *dir, const tp_page_opts *o, const char ***png_names,
                    tp_err *err)
{
    *png_names = tp_xcalloc(1, sizeof **png_names);
    return 0;
}
