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
    0x0072B2, /*  0 blue           gemm, GEMM, kernel */
    0xE69F00, /*  1 orange         conv */
    0x009E73, /*  2 bluish green   elementwise */
    0xD55E00, /*  3 vermillion     reduce */
    0x56B4E9, /*  4 sky blue       memcpy */
    0xCC79A7, /*  5 reddish purple nccl, communication */
    0xF0E442, /*  6 yellow         norm */
    0xCCCC99, /*  7 khaki          softmax */
    0x99DDF7, /*  8 pale sky       gemv, attention */
    0x99260D, /*  9 brick          index, MoE */
    0x733340, /* 10 wine           cat; 1st user category */
    0x802659, /* 11 plum           memset */
    0xEE6677, /* 12 rose           triton, compiled, XLA */
    0xFFC4CF, /* 13 pale pink      embedding fwd, embedding */
    0xA2DDCC, /* 14 pale mint      embedding bwd; 3rd user category; error-bar charts (light) */
    0xF7BB99, /* 15 peach          pool; 4th user category */
    0xB3664D, /* 16 terracotta     transpose; GPU split: computation */
    0x9991C4, /* 17 lavender       random; GPU split: exposed communication */
    0x91C499, /* 18 sage           sort; GPU split: exposed memcpy */
    0xE69988, /* 19 salmon         optimizer */
    0x808000, /* 20 olive          2nd user category */
    0xD5A2CC, /* 21 orchid         5th user category */
    0x335980, /* 22 slate blue     6th user category */
    0x268CB3, /* 23 cerulean       7th user category */
};

tp_color tp_palette(size_t i) { return colors[i % TP_PALETTE_SIZE]; }

/* Fixed colours: the kernel families (names as kernel_family.c returns
 * them) by slot, the event kinds a timeline is coloured by (tp_kind_name
 * and page_timeline.c's names) by colour of their own, chosen apart from
 * kernel, memcpy, memset and "other" (memcpy, host op and runtime were two
 * shades of one blue before). */
static const struct {
    const char *key;
    int slot;       /* -1: grey; -2: `color` */
    tp_color color;
} fixed[] = {
    {"gemm", 0, 0},          {"conv", 1, 0},          {"elementwise", 2, 0},    {"reduce", 3, 0},
    {"memcpy", 4, 0},        {"nccl", 5, 0},          {"norm", 6, 0},           {"softmax", 7, 0},
    {"gemv", 8, 0},          {"index", 9, 0},         {"cat", 10, 0},           {"memset", 11, 0},
    {"triton", 12, 0},       {"embedding fwd", 13, 0}, {"embedding bwd", 14, 0}, {"pool", 15, 0},
    {"transpose", 16, 0},    {"random", 17, 0},       {"sort", 18, 0},          {"optimizer", 19, 0},
    {"other", -1, 0},
    {"kernel", 0, 0},
    {"host_op", -2, TP_COLOR_HOST_OP},     {"cpu_op", -2, TP_COLOR_HOST_OP},
    {"runtime", -2, TP_COLOR_RUNTIME},     {"cuda_runtime", -2, TP_COLOR_RUNTIME},
    {"annotation", -2, TP_COLOR_ANNOTATION}, {"sync", -2, TP_COLOR_SYNC},
};

tp_color tp_palette_key(const char *key)
{
    if (!key)
        key = "";
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
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
