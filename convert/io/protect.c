/* protect.c: the inputs no output may replace (protect.h). */
#include "convert/io/protect.h"
#include "convert/base/cli.h"
#include "convert/base/common.h"
#include "convert/base/i64map.h"

#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* Threads may open inputs and outputs at once (a report's PDF thread):
 * one lock over the table. */
typedef struct protected_file {
    dev_t dev;
    ino_t ino;
    char *path;
    uint32_t next; /* the next file whose key is the same (TP_I64MAP_EMPTY: none) */
} protected_file;
static protected_file *protected_in;
static size_t n_protected, protected_cap;
static tp_i64map by_key; /* key -> the first file with it: a batch of 5,000 inputs checks its rows' files in O(1) */
static pthread_mutex_t protected_mu = PTHREAD_MUTEX_INITIALIZER;

static int64_t file_key(dev_t dev, ino_t ino)
{
    return (int64_t)(((uint64_t)ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t)dev);
}

/* The protected file with this device and inode, or NULL (under the lock). */
static protected_file *find(dev_t dev, ino_t ino)
{
    for (uint32_t i = tp_i64map_get(&by_key, file_key(dev, ino)); i != TP_I64MAP_EMPTY; i = protected_in[i].next)
        if (protected_in[i].dev == dev && protected_in[i].ino == ino)
            return &protected_in[i];
    return NULL;
}

void tp_out_protect(const char *input)
{
    struct stat st;
    if (!input || strcmp(input, "-") == 0 || stat(input, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    pthread_mutex_lock(&protected_mu);
    if (!find(st.st_dev, st.st_ino) && n_protected < TP_I64MAP_EMPTY - 1) {
        TP_GROW(protected_in, protected_cap, n_protected + 1);
        int64_t key = file_key(st.st_dev, st.st_ino);
        protected_in[n_protected] = (protected_file){st.st_dev, st.st_ino, tp_xstrdup(input), tp_i64map_get(&by_key, key)};
        tp_i64map_put(&by_key, key, (uint32_t)n_protected++);
    }
    pthread_mutex_unlock(&protected_mu);
}

/* The files the command's FILE options named (tp_opt_file, cli.h), taken
 * into the table at the first check after they were parsed: before any
 * output is opened, so each is stat'ed while it is still the user's file. */
static size_t n_option_files;
static pthread_mutex_t option_files_mu = PTHREAD_MUTEX_INITIALIZER;

static void protect_option_files(void)
{
    const char *const *v;
    pthread_mutex_lock(&option_files_mu);
    size_t n = tp_opt_files(&v);
    for (; n_option_files < n; n_option_files++)
        tp_out_protect(v[n_option_files]);
    pthread_mutex_unlock(&option_files_mu);
}

const char *tp_out_protected(const char *path)
{
    protect_option_files();
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    pthread_mutex_lock(&protected_mu);
    const protected_file *f = find(st.st_dev, st.st_ino);
    const char *hit = f ? f->path : NULL;
    pthread_mutex_unlock(&protected_mu);
    return hit;
}
