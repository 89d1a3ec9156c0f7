/* fpage_etdump.h: the etdump row of the format pages table (report/formats/format_pages.c). */
#ifndef TP_FPAGE_ETDUMP_H
#define TP_FPAGE_ETDUMP_H

#include "report/pages/fpage.h"

extern const tp_format_pages tp_fpages_etdump;

#endif
