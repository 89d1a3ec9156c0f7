/* fpage_dvdt.h: the dvdt row of the format pages table (report/formats/format_pages.c). */
#ifndef TP_FPAGE_DVDT_H
#define TP_FPAGE_DVDT_H

#include "report/pages/fpage.h"

extern const tp_format_pages tp_fpages_dvdt;

#endif
