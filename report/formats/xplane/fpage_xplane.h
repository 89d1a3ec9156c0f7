/* fpage_xplane.h: the xplane row of the format pages table (report/formats/format_pages.c). */
#ifndef TP_FPAGE_XPLANE_H
#define TP_FPAGE_XPLANE_H

#include "report/pages/fpage.h"

extern const tp_format_pages tp_fpages_xplane;

#endif
