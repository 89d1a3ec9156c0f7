/* dir_lock.c: one run per output folder (dir_lock.h). */
#include "convert/io/dir_lock.h"
#include "convert/base/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* POSIX record locks (fcntl), not flock: a forked worker does not inherit
 * them, so a worker that outlives its parent holds nothing, and F_GETLK
 * names the holder's pid.  Byte 0: the folder (exclusive for a whole run
 * or a merge, shared by shards); byte 1 + N(N-1)/2 + K-1: shard K/N. */
static int lock_byte(int fd, short type, off_t at, bool wait, const char *dir, const char *what, const char *who)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    if (fcntl(fd, F_SETLK, &fl) == 0)
        return 0;
    if (errno != EACCES && errno != EAGAIN) {
        /* a filesystem without locks: say so once and go on unprotected */
        fprintf(stderr, TP_PROG " %s: %s: cannot lock (%s); not protected from a concurrent run\n", who, dir,
                strerror(errno));
        return 0;
    }
    struct flock holder = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    char pid[40] = "";
    if (fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK && holder.l_pid > 0)
        snprintf(pid, sizeof pid, " (pid %ld)", (long)holder.l_pid);
    if (!wait) {
        fprintf(stderr, TP_PROG ": %s: another %s is writing %s%s\n", dir, who, what, pid);
        return -1;
    }
    fprintf(stderr, TP_PROG " %s: %s: waiting for another %s writing %s%s\n", who, dir, who, what, pid);
    while (fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) {
            fprintf(stderr, TP_PROG ": %s: cannot lock %s: %s\n", dir, what, strerror(errno));
            return -1;
        }
    return 0;
}

/* The lock file this run created (a run refused after taking the lock
 * removes it: tp_dir_unlock), by descriptor: a run holds one or two. */
static struct {
    int fd;
    char path[4096];
} created[4];

int tp_dir_lock(const char *dir, const char *who, int shard_k, int shard_n, bool wait)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/.tracepress-%s.lock", dir, strcmp(who, "batch") == 0 ? "batch" : "job");
    int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    bool made = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, TP_PROG ": %s: cannot open the %s lock: %s\n", p, who, strerror(errno));
        return -1;
    }
    int rc;
    if (shard_n == 0)
        rc = lock_byte(fd, F_WRLCK, 0, wait, dir, "this folder", who);
    else {
        char what[80];
        snprintf(what, sizeof what, "shard %d/%d of this folder", shard_k, shard_n);
        off_t at = 1 + (off_t)shard_n * (shard_n - 1) / 2 + (shard_k - 1);
        rc = lock_byte(fd, F_RDLCK, 0, wait, dir, "this folder", who);
        if (rc == 0)
            rc = lock_byte(fd, F_WRLCK, at, wait, dir, what, who);
    }
    if (rc < 0) {
        close(fd);
        return -1;
    }
    for (size_t i = 0; made && i < sizeof created / sizeof *created; i++)
        if (!created[i].path[0]) {
            created[i].fd = fd;
            snprintf(created[i].path, sizeof created[i].path, "%s", p);
            break;
        }
    return fd;
}

void tp_dir_unlock(int fd, bool refused)
{
    for (size_t i = 0; i < sizeof created / sizeof *created; i++)
        if (created[i].path[0] && created[i].fd == fd) {
            if (refused) /* removed while still held: no other run can have locked it */
                (void)unlink(created[i].path);
            created[i].path[0] = 0;
        }
    close(fd);
}
