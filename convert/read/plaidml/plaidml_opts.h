/* plaidml_opts.h: PlaidML's own options, read by the reader and the
 * report's PlaidML pages. */
#ifndef TP_PLAIDML_OPTS_H
#define TP_PLAIDML_OPTS_H

#include "convert/read/formats.h"

/* PlaidML's own options (tp_format_plaidml.options: --with-source). */
typedef struct tp_plaidml_opts {
    bool with_source; /* keep kernel sources and program text in the args */
    size_t invocation; /* the report's Program Run page: this ScheduleInvocation (0 = its default) */
} tp_plaidml_opts;

static inline const tp_plaidml_opts *tp_plaidml_opts_of(const tp_read_opts *o)
{
    static const tp_plaidml_opts defaults;
    const tp_plaidml_opts *p = tp_format_opts(o, &tp_format_plaidml);
    return p ? p : &defaults;
}

#endif
