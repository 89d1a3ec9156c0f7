/* test_file_window.c: a thread reading a mapped input through a file window
 * (convert/base/file_window.h) keeps at most TP_FWIN_WINDOWS x 2 MB of it
 * mapped, however far apart its reads are: on kernels whose page cache
 * holds large folios one touch maps up to 2 MB, and the old bound (256
 * touched windows of 64 KB) let a writer thread of a 500 MB conversion map
 * 180 MB of it at once. */
#include "convert/base/file_window.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long rss_file_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "RssFile:", 8) == 0)
            kb = strtol(line + 8, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

TEST(file_window_bounds_what_stays_mapped)
{
    enum { MB = 1 << 20, SIZE = 128 * MB, STRIDE = MB + 4096 * 3 }; /* a read every ~1 MB: 127 of them */
    const char *path = tp_test_tmp("fwin.bin");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    char *block = malloc(MB); /* written in large blocks: the page cache may keep large folios */
    CHECK(block != NULL);
    for (int k = 0; block && k < SIZE / MB; k++) {
        memset(block, 'a' + k % 26, MB);
        fwrite(block, 1, MB, f);
    }
    free(block);
    fclose(f);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    const char *map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED)
        return;
    tp_fwin w;
    memset(&w, 0, sizeof w);
    long base = rss_file_kb(), most = 0;
    enum { N = SIZE / STRIDE };
    for (int pass = 0; pass < 2; pass++) /* forward, then backward */
        for (int k = 0; k < N; k++) {
            uint64_t off = (uint64_t)(pass ? N - 1 - k : k) * STRIDE;
            tp_fwin_touch(&w, map, SIZE, off);
            if (map[off] != 'a' + (int)(off / MB) % 26) { /* a page handed back reads the same again */
                tp_test_fail(__FILE__, __LINE__, "byte %llu read back wrong", (unsigned long long)off);
                pass = 2;
                break;
            }
            long kb = rss_file_kb() - base;
            most = kb > most ? kb : most;
        }
    /* 8 windows of 2 MB, and a little for pages the test's own code maps */
    if (most > (long)TP_FWIN_WINDOWS * 2048 + 1024)
        tp_test_fail(__FILE__, __LINE__, "%ld KB of the file mapped at once (bound %d KB)", most,
                     TP_FWIN_WINDOWS * 2048);
    tp_fwin_release(&w);
    long after = rss_file_kb() - base;
    if (after > 2048)
        tp_test_fail(__FILE__, __LINE__, "%ld KB still mapped after the release", after);
    munmap((void *)map, SIZE);
}
