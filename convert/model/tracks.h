/* tracks.h: per-track views of the trace shared by the writer, the nesting
 * repair and the report's timeline: events of each track in time order, the
 * display order of processes and tracks, and output pid/tid numbers. */
#ifndef TP_TRACKS_H
#define TP_TRACKS_H

#include "convert/model/model.h"

/* Events (not dropped) of each track sorted by (ts, longer first, index):
 * the order Perfetto's importer uses to decide nesting.
 * Track k's events are ev[start[k] .. start[k+1]). */
typedef struct tp_track_index {
    uint32_t *ev;
    size_t *start;
    size_t ntracks;
} tp_track_index;

void tp_track_index_build(const tp_trace *t, tp_track_index *ix);
void tp_track_index_free(tp_track_index *ix);
/* Sort event indexes by (ts, longer first, index): the nesting order. */
void tp_sort_by_time(const tp_trace *t, uint32_t *ev, size_t n);

/* Give numbers to string-keyed processes and tracks and to derived and
 * overflow tracks (after the largest number already used). */
void tp_assign_ids(tp_trace *t);

/* Display order: host processes, then devices, then the rest; tracks by
 * their input sort index or tid, derived and overflow tracks right after the
 * track they describe.  Arrays of indexes, malloc'ed, owned by the caller. */
uint32_t *tp_process_order(const tp_trace *t);
uint32_t *tp_track_order(const tp_trace *t); /* within each process, grouped by process order */
/* The same with the process order at hand (tp_process_order walks every event). */
uint32_t *tp_track_order_of(const tp_trace *t, const uint32_t *porder);

/* Make slices on every track properly nested: a slice that partially
 * overlaps an enclosing one moves to an overflow track "<name> (overlap)"
 * beside it, one that overlaps there too to that track's overflow track, and
 * so on: each slice goes on the first of these rows where it nests.  A track
 * has at most TP_OVERLAP_ROWS overflow rows (each slice tries at most that
 * many); a slice that nests in none is dropped and counted ("slices past 256
 * overlap rows").  Fills tp_event.depth.  Returns the number of slices moved
 * (each counted once, whatever its row).
 * When `out` is not NULL it receives the track index of the repaired trace
 * (built anyway; writers need it), to be freed with tp_track_index_free. */
#define TP_OVERLAP_ROWS 256
#define TP_OVERLAP_ROWS_TEXT "256"
uint64_t tp_nest_repair(tp_trace *t, tp_track_index *out);

#endif
