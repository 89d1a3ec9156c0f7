/* names.h: a name for every process and track a converted trace shows.
 * A trace without metadata events (no process_name, thread_name) left the
 * viewers to invent "Process 0", "Thread 7" or "Process -1"; the converter
 * names them as the report does (a device's "GPU 0", its "stream 7", a
 * host's "pid 4242" and "thread 4243"), once, in the model, before writing. */
#ifndef TP_NAMES_H
#define TP_NAMES_H

#include "convert/model/model.h"

/* Names the processes and the host and device tracks that have none (no
 * name, no string id); named ones are never touched, so a converted trace
 * converted again keeps its bytes.  The number of names given. */
size_t tp_name_unnamed(tp_trace *t);

#endif
