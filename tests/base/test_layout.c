/* test_layout.c: the architecture's rules, checked on the source tree itself
 * (docs/ARCHITECTURE.md): includes only point down the layers, no include
 * circle between files or between folders, no production file over 1,000
 * lines, no folder over 25 files.  A rule broken here is a design change to
 * discuss, not a number to raise. */
#include "tests/lib/harness.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { MAX_FILES = 1024, MAX_INC = 48, MAX_LINES = 1000, MAX_DIR_FILES = 25 };

/* The layers, lowest first.  A file may include a file of its own folder, of
 * a lower layer, or of a parent folder of the same layer (read/xplane ->
 * read/).  Longest prefix wins; a room ending in a slash and a star is every
 * folder inside it (each format's report pages sit below the table that
 * lists them). */
static const struct {
    const char *room;
    int layer;
} layers[] = {
    {"convert/base", 0},       {"convert/io", 10},        {"convert/codec", 20},       {"convert/model", 30},
    {"render/labels", 40},     {"render/text", 41},       {"render", 42},              {"render/charts", 43},
    {"render/backends", 43},   {"convert/read", 50},      {"convert/write", 50},       {"convert/pipeline", 60},
    {"convert", 70},           {"report/perf_models", 79}, {"report/comm", 79}, {"report/rules", 79}, {"report/memory", 79}, {"report/analysis", 80},   {"report/findings", 81},   {"report/inference", 81},   {"report/out", 82},
    {"report/pages", 83},      {"report/formats/*", 84},  {"report/formats", 85},     {"report/assemble", 86},
    {"convert/critical", 55}, /* the critical path: read by convert (--critical-path) and the report */
    {"report/diff", 87},       {"report/batch", 87},      {"report/job", 87},        {"report", 88},            {".", 90},
};

typedef struct {
    char path[256];
    char inc[MAX_INC][256];
    int ninc;
    int lines;
    int state; /* cycle search: 0 new, 1 on the path, 2 done */
} src_file;

static src_file files[MAX_FILES];
static int nfiles;

static void dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 1;
    snprintf(dir, n, "%.*s", (int)len, slash ? path : ".");
}

static int layer_of(const char *dir, const char **room)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof layers / sizeof *layers; i++) {
        size_t n = strlen(layers[i].room);
        bool children = n > 2 && strcmp(layers[i].room + n - 2, "/*") == 0;
        if (children)
            n -= 1; /* "report/formats/" */
        bool match = strcmp(layers[i].room, ".") == 0 ||
                     (children ? strncmp(dir, layers[i].room, n) == 0 && dir[n]
                               : strncmp(dir, layers[i].room, n) == 0 && (dir[n] == '\0' || dir[n] == '/'));
        if (match && (best < 0 || n > best_len)) {
            best = (int)i;
            best_len = strcmp(layers[i].room, ".") == 0 ? 0 : n;
        }
    }
    *room = layers[best].room;
    return layers[best].layer;
}

static void read_source(const char *path)
{
    if (nfiles == MAX_FILES)
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    src_file *s = &files[nfiles++];
    snprintf(s->path, sizeof s->path, "%s", path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        s->lines++;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "#include \"", 10) != 0 || s->ninc == MAX_INC)
            continue;
        const char *q = strchr(p + 10, '"');
        if (q)
            snprintf(s->inc[s->ninc++], 256, "%.*s", (int)(q - p - 10), p + 10);
    }
    fclose(f);
}

/* Every .c/.h below dir; counts each folder's files against the limit. */
static void walk(const char *dir, bool sources)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    int nreg = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "node_modules") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(p, sources);
        } else if (S_ISREG(st.st_mode)) {
            nreg++;
            size_t n = strlen(p);
            if (sources && n > 2 && (strcmp(p + n - 2, ".c") == 0 || strcmp(p + n - 2, ".h") == 0))
                read_source(p[0] == '.' && p[1] == '/' ? p + 2 : p);
        }
    }
    closedir(d);
    if (nreg > MAX_DIR_FILES)
        tp_test_fail(__FILE__, __LINE__, "folder %s holds %d files (at most %d: split it into rooms)", dir, nreg,
                     MAX_DIR_FILES);
}

static void load_tree(void)
{
    if (nfiles)
        return;
    const char *roots[] = {"convert", "report", "render", "tests"};
    for (size_t i = 0; i < 4; i++)
        walk(roots[i], true);
    read_source("commands.c");
    read_source("tracepress.c");
    const char *other[] = {"golden", "scripts", "docs"};
    for (size_t i = 0; i < 3; i++)
        walk(other[i], false);
}

static bool production(const char *path)
{
    return strncmp(path, "tests/", 6) != 0;
}

static int find_file(const char *path)
{
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i].path, path) == 0)
            return i;
    return -1;
}

TEST(layout_includes_point_down_the_layers)
{
    load_tree();
    CHECK(nfiles > 100);
    int edges = 0;
    for (int i = 0; i < nfiles; i++) {
        const src_file *s = &files[i];
        for (int k = 0; k < s->ninc; k++) {
            const char *to = s->inc[k];
            if (find_file(to) < 0) {
                tp_test_fail(__FILE__, __LINE__, "%s includes \"%s\": not a path from the root", s->path, to);
                continue;
            }
            edges++;
            if (!production(s->path))
                continue;
            if (!production(to)) {
                tp_test_fail(__FILE__, __LINE__, "%s includes the test file %s", s->path, to);
                continue;
            }
            char a[256], b[256];
            dir_of(s->path, a, sizeof a);
            dir_of(to, b, sizeof b);
            const char *ra, *rb;
            int la = layer_of(a, &ra), lb = layer_of(b, &rb);
            size_t nb = strlen(b);
            bool parent = strncmp(a, b, nb) == 0 && a[nb] == '/';
            if (strcmp(a, b) != 0 && !(lb < la) && !(lb == la && parent))
                tp_test_fail(__FILE__, __LINE__, "%s (%s, layer %d) includes %s (%s, layer %d): up or across a layer",
                             s->path, ra, la, to, rb, lb);
            /* render/ is the report's drawing branch: the converter never draws */
            if (strncmp(s->path, "convert/", 8) == 0 && strncmp(to, "render/", 7) == 0)
                tp_test_fail(__FILE__, __LINE__, "%s includes %s: the converter does not reach into render/", s->path,
                             to);
        }
    }
    CHECK(edges > 300);
}

static bool file_cycle(int i, char *trail, size_t n)
{
    src_file *s = &files[i];
    if (s->state == 1) {
        snprintf(trail, n, "%s", s->path);
        return true;
    }
    if (s->state == 2)
        return false;
    s->state = 1;
    for (int k = 0; k < s->ninc; k++) {
        int j = find_file(s->inc[k]);
        if (j >= 0 && file_cycle(j, trail, n)) {
            size_t len = strlen(trail);
            snprintf(trail + len, n - len, " <- %s", s->path);
            return true;
        }
    }
    s->state = 2;
    return false;
}

TEST(layout_no_include_circle_between_files)
{
    load_tree();
    for (int i = 0; i < nfiles; i++)
        files[i].state = 0;
    char trail[4096] = "";
    for (int i = 0; i < nfiles; i++)
        if (file_cycle(i, trail, sizeof trail)) {
            tp_test_fail(__FILE__, __LINE__, "include circle: %s", trail);
            break;
        }
}

/* Folders as nodes, an edge where a file of one includes a file of another. */
enum { MAX_DIRS = 128 };
static char dirs[MAX_DIRS][256];
static bool dir_edge[MAX_DIRS][MAX_DIRS];
static int ndirs, dir_state[MAX_DIRS];

static int dir_index(const char *d)
{
    for (int i = 0; i < ndirs; i++)
        if (strcmp(dirs[i], d) == 0)
            return i;
    if (ndirs == MAX_DIRS)
        return -1;
    snprintf(dirs[ndirs], 256, "%s", d);
    return ndirs++;
}

static bool dir_cycle(int i, char *trail, size_t n)
{
    if (dir_state[i] == 1) {
        snprintf(trail, n, "%s", dirs[i]);
        return true;
    }
    if (dir_state[i] == 2)
        return false;
    dir_state[i] = 1;
    for (int j = 0; j < ndirs; j++)
        if (dir_edge[i][j] && dir_cycle(j, trail, n)) {
            size_t len = strlen(trail);
            snprintf(trail + len, n - len, " <- %s", dirs[i]);
            return true;
        }
    dir_state[i] = 2;
    return false;
}

TEST(layout_no_include_circle_between_folders)
{
    load_tree();
    for (int i = 0; i < nfiles; i++) {
        if (!production(files[i].path))
            continue;
        char a[256], b[256];
        dir_of(files[i].path, a, sizeof a);
        for (int k = 0; k < files[i].ninc; k++) {
            dir_of(files[i].inc[k], b, sizeof b);
            int x = dir_index(a), y = dir_index(b);
            if (x >= 0 && y >= 0 && x != y)
                dir_edge[x][y] = true;
        }
    }
    CHECK(ndirs < MAX_DIRS);
    char trail[4096] = "";
    for (int i = 0; i < ndirs; i++)
        if (dir_cycle(i, trail, sizeof trail)) {
            tp_test_fail(__FILE__, __LINE__, "folders include each other: %s", trail);
            break;
        }
}

TEST(layout_no_production_file_over_1000_lines)
{
    load_tree();
    for (int i = 0; i < nfiles; i++)
        if (production(files[i].path) && files[i].lines > MAX_LINES)
            tp_test_fail(__FILE__, __LINE__, "%s has %d lines (at most %d: split it at its seams)", files[i].path,
                         files[i].lines, MAX_LINES);
}
