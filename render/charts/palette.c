/* palette.c: the 24 colours, the key -> colour mapping, text on a colour.
 *
 * Slots 0-6 are the Okabe-Ito colours without black (Okabe & Ito 2008,
 * "Color Universal Design"); slots 7-23 were chosen (from Paul Tol's
 * colour-blind-safe sets and tints/shades of both) so that the colours that
 * meet in one chart stay apart under normal vision and under simulated
 * deuteranopia, protanopia and tritanopia: tests/render/test_render_palette.c
 * measures CIEDE2000 distances with Machado et al. (2009) simulation and
 * docs/RENDER.md "Palette" lists the groups and thresholds. */
#include "render/charts/palette.h"

#include <string.h>

static const tp_color colors[TP_PALETTE_SIZE] = {
    0x0072B2, /*  0 blue           GEMM */
    0xE69F00, /*  1 orange         CONV */
    0x009E73, /*  2 bluish green   elementwise */
    0xD55E00, /*  3 vermillion     reduce */
    0x56B4E9, /*  4 sky blue       memcpy */
    0xCC79A7, /*  5 reddish purple communication */
    0xF0E442, /*  6 yellow         normalisation */
    0xCCCC99, /*  7 khaki          softmax */
    0x005818, /*  8 forest         attention (was pale sky 0x99DDF7, 12.7 from memcpy's sky blue; searched: >= 56 from it for all visions, issue 36) */
    0x99260D, /*  9 brick          MoE */
    0x733340, /* 10 wine           1st user category */
    0x802659, /* 11 plum           memset */
    0xEE6677, /* 12 rose           compiled (a compiler's kernel of no known kind), XLA */
    0xFFC4CF, /* 13 pale pink      embedding */
    0xA2DDCC, /* 14 pale mint      3rd user category; error-bar charts (light) */
    0x00F878, /* 15 spring green   rotary (searched: apart from every category and the split, test_render_palette.c) */
    0xB3664D, /* 16 terracotta     GPU split: computation */
    0x9991C4, /* 17 lavender       GPU split: exposed communication */
    0x91C499, /* 18 sage           GPU split: exposed memcpy */
    0xE69988, /* 19 salmon         optimizer */
    0x808000, /* 20 olive          2nd user category */
    0xD5A2CC, /* 21 orchid         4th user category */
    0x335980, /* 22 slate blue     5th user category */
    0x268CB3, /* 23 cerulean       6th user category */
};

tp_color tp_palette(size_t i) { return colors[i % TP_PALETTE_SIZE]; }

/* Fixed colours: the built-in op categories (report/analysis/categories.rules:
 * every kernel, memcpy and memset is coloured by its category, the one
 * classification, on every page) by slot, in their display order, then the
 * event kinds a timeline colours host rows by, chosen apart from the
 * categories and "other" (memcpy, host op and runtime were two shades of one
 * blue before). */
static const struct {
    const char *key;
    int slot;       /* -1: grey; -2: `color` */
    tp_color color;
} fixed[] = {
    {"GEMM", 0, 0},          {"CONV", 1, 0},          {"attention", 8, 0},     {"normalisation", 6, 0},
    {"softmax", 7, 0},       {"elementwise", 2, 0},   {"reduce", 3, 0},        {"rotary", 15, 0},
    {"MoE", 9, 0},           {"embedding", 13, 0},    {"optimizer", 19, 0},    {"compiled", 12, 0},
    {"communication", 5, 0}, {"memcpy", 4, 0},        {"memset", 11, 0},       {"other", -1, 0},
    {"kernel", 0, 0},
    {"host_op", -2, TP_COLOR_HOST_OP},     {"cpu_op", -2, TP_COLOR_HOST_OP},
    {"runtime", -2, TP_COLOR_RUNTIME},     {"cuda_runtime", -2, TP_COLOR_RUNTIME},
    {"annotation", -2, TP_COLOR_ANNOTATION}, {"sync", -2, TP_COLOR_SYNC},
    /* what bound a stretch of the critical path (convert/critical/critical.c): hashed before, kernel_gap
     * fell on cerulean beside the kernels' blue; a launch delay in the runtime's colour, a gap in grey */
    {"launch_delay", -2, TP_COLOR_RUNTIME}, {"data_loading", -2, TP_COLOR_ANNOTATION},
    {"kernel_gap", -1, 0},                  {"outside_path", 20, 0},
};
#define NFIXED (sizeof fixed / sizeof fixed[0])

/* the slots no built-in category and no part of the GPU split takes, for a
 * user's own categories in their order */
static const int user_slots[] = {10, 20, 14, 21, 22, 23};

tp_color tp_palette_user(size_t k)
{
    return k < sizeof user_slots / sizeof user_slots[0] ? tp_palette((size_t)user_slots[k]) : (tp_color)0;
}

bool tp_palette_has_key(const char *key)
{
    for (size_t i = 0; key && i < NFIXED; i++)
        if (strcmp(fixed[i].key, key) == 0)
            return true;
    return false;
}

int tp_palette_rank(const char *key)
{
    if (!key || strcmp(key, "other") == 0)
        return 1000;
    for (size_t i = 0; i < NFIXED; i++)
        if (strcmp(fixed[i].key, key) == 0)
            return (int)i;
    return 500;
}

tp_color tp_palette_key(const char *key)
{
    if (!key)
        key = "";
    for (size_t i = 0; i < NFIXED; i++)
        if (strcmp(fixed[i].key, key) == 0)
            return fixed[i].slot == -2 ? fixed[i].color
                   : fixed[i].slot < 0 ? (tp_color)TP_COLOR_OTHER
                                       : tp_palette((size_t)fixed[i].slot);
    uint32_t h = 2166136261u; /* FNV-1a: stable, no pointer or table order */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return tp_palette(h % TP_PALETTE_SIZE);
}

tp_color tp_text_color_on(tp_color bg)
{
    double r = bg >> 16 & 255, g = bg >> 8 & 255, b = bg & 255;
    double lum = 0.299 * r + 0.587 * g + 0.114 * b; /* perceived brightness */
    return lum > 140 ? 0x000000 : 0xFFFFFF;
}
