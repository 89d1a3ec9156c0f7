/* fpage_plaidml.h: the plaidml row of the format pages table (report/formats/format_pages.c). */
#ifndef TP_FPAGE_PLAIDML_H
#define TP_FPAGE_PLAIDML_H

#include "report/pages/fpage.h"

extern const tp_format_pages tp_fpages_plaidml;

#endif
