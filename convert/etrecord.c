/* etrecord.c: placeholder, replaced below. */
#include "etrecord.h"
#include <stdlib.h>
tp_etrecord *tp_etrecord_load(const char *path, tp_err *err) { tp_fail_at(err, "", "%s: ETRecord not supported yet", path); return NULL; }
void tp_etrecord_free(tp_etrecord *r) { (void)r; }
size_t tp_etrecord_nodes(const tp_etrecord *r, int32_t iid, const char *delegate_id, size_t delegate_len,
                         const tp_etr_node **nodes, size_t max, const char **backend) { return 0; }
size_t tp_etrecord_node_count(const tp_etrecord *r) { return 0; }
const tp_etr_node *tp_etrecord_node(const tp_etrecord *r, size_t i) { return NULL; }
