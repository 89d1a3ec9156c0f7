/* palette.c: Okabe-Ito colours with lightness steps, stable key mapping. */
#include "render/charts/palette.h"

#include <string.h>

/* Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish
 * green, yellow, blue, vermillion, reddish purple.  Order below: blue,
 * orange, bluish green, vermillion, sky blue, reddish purple, yellow. */
static const tp_color base[7] = {0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0x56B4E9, 0xCC79A7, 0xF0E442};

static tp_color mix(tp_color c, tp_color with, double t)
{
    tp_color out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double a = c >> sh & 255, b = with >> sh & 255;
        out |= (tp_color)(a + (b - a) * t + 0.5) << sh;
    }
    return out;
}

tp_color tp_palette(size_t i)
{
    i %= TP_PALETTE_SIZE;
    if (i < 7)
        return base[i];
    if (i < 14)
        return mix(base[i - 7], 0x000000, 0.4);
    return mix(base[i - 14], 0xFFFFFF, 0.5);
}

/* Fixed slots for the kernel families (names as kernel_family.c returns
 * them).  The most common families take the 7 base colours. */
static const struct {
    const char *key;
    int slot; /* -1: grey */
} fixed[] = {
    {"gemm", 0},
    {"conv", 1},
    {"elementwise", 2},
    {"reduce", 3},
    {"memcpy", 4},
    {"nccl", 5},
    {"norm", 6},
    {"softmax", 7},
    {"gemv", 8},
    {"index", 9},
    {"cat", 10},
    {"memset", 11},
    {"triton", 12},
    {"embedding fwd", 13},
    {"embedding bwd", 14},
    {"pool", 15},
    {"transpose", 16},
    {"optimizer", 19},
    {"sort", 18},
    {"random", 17},
    {"other", -1},
    /* event kinds (tp_kind_name) for timelines coloured by kind; they share
     * slots with families that do not appear in the same chart */
    {"kernel", 0},
    {"host_op", 18},
    {"cpu_op", 18},
    {"runtime", 19},
    {"cuda_runtime", 19},
    {"sync", 17},
    {"annotation", 20},
};

tp_color tp_palette_key(const char *key)
{
    if (!key)
        key = "";
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(fixed[i].key, key) == 0)
            return fixed[i].slot < 0 ? (tp_color)TP_COLOR_OTHER : tp_palette((size_t)fixed[i].slot);
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
