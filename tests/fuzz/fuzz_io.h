/* fuzz_io.h: what the whole-trace fuzz targets share: the input bytes as a
 * file the commands' loader can open (a memfd), a scratch folder for the
 * outputs (removed at exit), and an output read back whole. */
#ifndef TP_FUZZ_IO_H
#define TP_FUZZ_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_memfd = -1;
static char fuzz_in_path[64];   /* /proc/self/fd/N: the current input */
static char fuzz_dir[64];       /* outputs go here */

static void fuzz_cleanup(void) { rmdir(fuzz_dir); }

/* The input bytes as fuzz_in_path (set up on the first call). */
static void fuzz_set_input(const uint8_t *data, size_t size)
{
    if (fuzz_memfd < 0) {
        fuzz_memfd = memfd_create("tp-fuzz-input", 0);
        char dir[] = "/tmp/tp-fuzz-XXXXXX";
        if (fuzz_memfd < 0 || !mkdtemp(dir)) {
            perror("tp-fuzz setup");
            abort();
        }
        snprintf(fuzz_in_path, sizeof fuzz_in_path, "/proc/self/fd/%d", fuzz_memfd);
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s", dir);
        atexit(fuzz_cleanup);
    }
    if (ftruncate(fuzz_memfd, 0) != 0 || pwrite(fuzz_memfd, data, size, 0) != (ssize_t)size)
        abort();
}

/* The file at path, whole (malloc'ed; NULL if it cannot be read). */
static uint8_t *fuzz_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(len > 0 ? (size_t)len + 1 : 1);
    *n = b && len > 0 ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

#endif
