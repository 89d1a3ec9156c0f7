/* dir_lock.h: one run per output folder, for the commands whose runs
 * share a folder in parts (batch, a job report): a POSIX record lock on
 * DIR/.tracepress-batch.lock (who "batch") or DIR/.tracepress-job.lock
 * (who "job report"), not inherited by forked workers and released when
 * the process ends, however it ends.  An unsharded run or a merge locks the
 * whole folder; shard K/N shares the folder with other shards and locks its
 * own K/N.  shard_n 0: not sharded.  Returns the lock's descriptor (kept
 * open for the run), or -1 with a message printed (another run has it,
 * naming its pid).  wait: block until it is free instead.  On a filesystem
 * without locks it says so and goes on unprotected. */
#ifndef TP_DIR_LOCK_H
#define TP_DIR_LOCK_H

#include <stdbool.h>

int tp_dir_lock(const char *dir, const char *who, int shard_k, int shard_n, bool wait);
/* Release the lock.  refused: the run wrote nothing (an input it refuses,
 * found only under the lock), so a lock file it created is removed too and
 * the folder is left as it was (a run that goes on keeps the file: removing
 * it then would let a waiting run and a new one lock two different files). */
void tp_dir_unlock(int fd, bool refused);

#endif
