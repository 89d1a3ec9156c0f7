/* The palette keeps the colours that meet in one chart apart, for normal
 * vision and for colour-blind readers: CIEDE2000 distances (Sharma, Wu &
 * Dalal 2005) between every pair of each group below, on the colours as
 * they are and as simulated for deuteranopia, protanopia and tritanopia
 * (Machado, Oliveira & Fernandes 2009, severity 1, applied to linear RGB).
 * The groups and thresholds are the ones docs/RENDER.md "Palette" lists. */
#include "render/charts/palette.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>

enum { NORMAL, DEUTAN, PROTAN, TRITAN, NVIS };
static const char *const vis_name[NVIS] = {"normal", "deuteranopia", "protanopia", "tritanopia"};
static const double machado[NVIS][3][3] = {
    {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
    {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
    {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
    {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
};

static double lin(double c) { return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4); }
static double f_lab(double t) { return t > 216.0 / 24389 ? cbrt(t) : t * 841.0 / 108 + 4.0 / 29; }

/* CIELAB (D65) of a colour as seen with vision v */
static void to_lab(tp_color c, int v, double lab[3])
{
    double rgb[3] = {lin((c >> 16 & 255) / 255.0), lin((c >> 8 & 255) / 255.0), lin((c & 255) / 255.0)}, s[3];
    for (int i = 0; i < 3; i++) { /* the simulated colour, clipped to the sRGB gamut as a screen would */
        double x = machado[v][i][0] * rgb[0] + machado[v][i][1] * rgb[1] + machado[v][i][2] * rgb[2];
        s[i] = x < 0 ? 0 : x > 1 ? 1 : x;
    }
    double X = 0.4124564 * s[0] + 0.3575761 * s[1] + 0.1804375 * s[2];
    double Y = 0.2126729 * s[0] + 0.7151522 * s[1] + 0.0721750 * s[2];
    double Z = 0.0193339 * s[0] + 0.1191920 * s[1] + 0.9503041 * s[2];
    double fx = f_lab(X / 0.95047), fy = f_lab(Y), fz = f_lab(Z / 1.08883);
    lab[0] = 116 * fy - 16, lab[1] = 500 * (fx - fy), lab[2] = 200 * (fy - fz);
}

static double deg(double r) { return r * 180 / M_PI; }
static double rad(double d) { return d * M_PI / 180; }

static double ciede2000(const double l1[3], const double l2[3])
{
    double C1 = hypot(l1[1], l1[2]), C2 = hypot(l2[1], l2[2]), Cb = (C1 + C2) / 2;
    double G = 0.5 * (1 - sqrt(pow(Cb, 7) / (pow(Cb, 7) + pow(25, 7))));
    double a1 = (1 + G) * l1[1], a2 = (1 + G) * l2[1];
    double C1p = hypot(a1, l1[2]), C2p = hypot(a2, l2[2]);
    double h1 = C1p ? fmod(deg(atan2(l1[2], a1)) + 360, 360) : 0, h2 = C2p ? fmod(deg(atan2(l2[2], a2)) + 360, 360) : 0;
    double dL = l2[0] - l1[0], dC = C2p - C1p, dh = 0;
    if (C1p * C2p != 0) {
        dh = h2 - h1;
        dh += dh > 180 ? -360 : dh < -180 ? 360 : 0;
    }
    double dH = 2 * sqrt(C1p * C2p) * sin(rad(dh / 2));
    double Lb = (l1[0] + l2[0]) / 2, Cbp = (C1p + C2p) / 2, hb = h1 + h2;
    if (C1p * C2p != 0)
        hb = fabs(h1 - h2) <= 180 ? (h1 + h2) / 2 : h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    double T = 1 - 0.17 * cos(rad(hb - 30)) + 0.24 * cos(rad(2 * hb)) + 0.32 * cos(rad(3 * hb + 6)) -
               0.20 * cos(rad(4 * hb - 63));
    double dth = 30 * exp(-pow((hb - 275) / 25, 2)), Rc = 2 * sqrt(pow(Cbp, 7) / (pow(Cbp, 7) + pow(25, 7)));
    double Sl = 1 + 0.015 * pow(Lb - 50, 2) / sqrt(20 + pow(Lb - 50, 2)), Sc = 1 + 0.045 * Cbp,
           Sh = 1 + 0.015 * Cbp * T, Rt = -sin(rad(2 * dth)) * Rc;
    return sqrt(pow(dL / Sl, 2) + pow(dC / Sc, 2) + pow(dH / Sh, 2) + Rt * (dC / Sc) * (dH / Sh));
}

static double delta(tp_color a, tp_color b, int v)
{
    double la[3], lb[3];
    to_lab(a, v, la);
    to_lab(b, v, lb);
    return ciede2000(la, lb);
}

TEST(render_palette_ciede2000_reference)
{
    /* pairs 1, 7, 17, 25 and 34 of Sharma, Wu & Dalal's test data (4 decimals) */
    static const double pairs[][7] = {
        {50, 2.6772, -79.7751, 50, 0, -82.7485, 2.0425},   {50, 0, 0, 50, -1, 2, 2.3669},
        {50, 2.5, 0, 56, -27, -3, 31.9030},                {60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644},
        {22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        CHECK(fabs(ciede2000(pairs[i], pairs[i] + 3) - pairs[i][6]) < 1e-4);
    /* the simulation: white stays white; red and green merge for deuteranopes (86.6 -> 19.4),
     * red darkens for protanopes (50.4 -> 36.2 from black), blue and yellow stay apart but
     * for tritanopes (103.4 -> 51.0) */
    double l[3];
    to_lab(0xFFFFFF, PROTAN, l);
    CHECK(fabs(l[0] - 100) < 0.5);
    CHECK(fabs(delta(0xFF0000, 0x00FF00, NORMAL) - 86.6) < 0.1 && fabs(delta(0xFF0000, 0x00FF00, DEUTAN) - 19.4) < 0.1);
    CHECK(fabs(delta(0xFF0000, 0x000000, PROTAN) - 36.2) < 0.1);
    CHECK(delta(0x0000FF, 0xFFFF00, DEUTAN) > 90 && fabs(delta(0x0000FF, 0xFFFF00, TRITAN) - 51.0) < 0.1);
}

/* Colours drawn together, and the smallest CIEDE2000 distance each pair
 * keeps under each vision. */
typedef struct {
    const char *what;
    tp_color c[28];
    size_t n;
    double min[NVIS];
} group;

static double check_group(const group *g)
{
    double worst = 1e9;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = i + 1; j < g->n; j++)
            for (int v = 0; v < NVIS; v++) {
                double d = delta(g->c[i], g->c[j], v);
                worst = fmin(worst, d / g->min[v]);
                if (d < g->min[v])
                    fprintf(stderr, "  %s: #%06x and #%06x are %.1f apart for %s (want >= %.0f)\n", g->what,
                            (unsigned)g->c[i], (unsigned)g->c[j], d, vis_name[v], g->min[v]);
            }
    return worst;
}

static tp_color K(const char *key) { return tp_palette_key(key); }
static tp_color S(size_t slot) { return tp_palette(slot); }
static tp_color U(size_t k) { return tp_palette_user(k); }

TEST(render_palette_distinct)
{
    const tp_color grey = TP_COLOR_OTHER, white = 0xFFFFFF;
    group all = {"all slots and grey", {0}, 0, {9, 0, 0, 0}};
    for (size_t i = 0; i < TP_PALETTE_SIZE; i++)
        all.c[all.n++] = S(i);
    all.c[all.n++] = grey;
    const group groups[] = {
        all,
        {"the 7 commonest categories and other",
         {K("GEMM"), K("CONV"), K("elementwise"), K("reduce"), K("memcpy"), K("communication"), K("normalisation"),
          K("other")},
         8,
         {20, 11, 11, 5}},
        {"timeline kinds",
         {K("GEMM"), K("memcpy"), K("memset"), K("cpu_op"), K("runtime"), K("annotation"), K("sync"), K("other")},
         8,
         {20, 12, 12, 6}},
        {"memcpy, cpu_op, runtime", {K("memcpy"), K("cpu_op"), K("runtime")}, 3, {30, 20, 20, 10}},
        {"GPU time split and idle (white)", {S(16), S(17), S(18), white}, 4, {25, 15, 15, 8}},
        /* page_efficiency.c family_color: gemm conv attention norm softmax elementwise reduce XLA */
        {"efficiency families", {S(0), S(1), S(8), S(6), S(7), S(2), S(3), S(12), grey}, 9, {15, 8, 8, 6}},
        /* page_gpu_time.c: built-in categories' colours and the split's */
        {"GPU time page",
         {K("GEMM"), K("CONV"), K("elementwise"), K("reduce"), K("memcpy"), K("communication"), K("normalisation"),
          K("softmax"), K("attention"), K("MoE"), K("memset"), K("compiled"), K("embedding"), K("optimizer"),
          K("rotary"), S(16), S(17), S(18), grey},
         19,
         {12, 4, 4, 3}},
        /* the timeline's legend: host kinds beside every category its device rows may show */
        {"timeline legend",
         {K("cpu_op"), K("runtime"), K("annotation"), K("sync"), K("GEMM"), K("CONV"), K("elementwise"), K("reduce"),
          K("memcpy"), K("communication"), K("normalisation"), K("softmax"), K("attention"), K("MoE"), K("memset"),
          K("compiled"), K("embedding"), K("optimizer"), K("rotary"), grey},
         20,
         {12, 4, 4, 3}},
        /* page_critical.c: the path row, coloured by what bound each stretch (critical.c tp_cp_bound_name) */
        {"critical path bounds",
         {K("cpu_op"), K("data_loading"), K("launch_delay"), K("kernel"), K("communication"), K("memcpy"),
          K("kernel_gap"), K("sync"), K("outside_path")},
         9,
         {20, 10, 10, 5}},
        /* page_common.c tp_category_colors: a user's own categories */
        {"user categories", {U(0), U(1), U(2), U(3), U(4), U(5)}, 6, {15, 7, 7, 3}},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        CHECK(check_group(&groups[i]) >= 1);
    /* the named pairs of issue 22 item 7, by name: far apart for everyone */
    CHECK(delta(K("memcpy"), K("cpu_op"), DEUTAN) >= 20 && delta(K("memcpy"), K("cpu_op"), PROTAN) >= 20);
    CHECK(delta(K("memcpy"), K("runtime"), DEUTAN) >= 20 && delta(K("cpu_op"), K("runtime"), PROTAN) >= 20);
    /* issue 36: memcpy and attention meet on every timeline and GPU time page: far apart for everyone */
    for (int v = 0; v < NVIS; v++)
        CHECK(delta(K("memcpy"), K("attention"), v) >= 30);
    /* every slot stands out from the white page; the error-bar slot is light enough for black bars */
    for (size_t i = 0; i < TP_PALETTE_SIZE; i++)
        CHECK(delta(S(i), white, NORMAL) >= 12);
    double l[3];
    to_lab(S(14), NORMAL, l);
    CHECK(l[0] >= 75);
    /* user categories 1-6 are 6 different colours, and none is a built-in category's */
    for (size_t i = 0; i < 6; i++) {
        for (size_t j = i + 1; j < 6; j++)
            CHECK(groups[9].c[i] != groups[9].c[j]);
        for (size_t j = 0; j < 15; j++)
            CHECK(groups[9].c[i] != groups[6].c[j]);
    }
    CHECK_EQ_INT(tp_palette_user(6), 0); /* past the free slots: the caller hashes */
}

TEST(render_palette_stable_keys)
{
    CHECK_EQ_INT(tp_palette_key("GEMM"), 0x0072B2); /* Okabe-Ito blue, in every chart */
    CHECK_EQ_INT(tp_palette_key("cpu_op"), tp_palette_key("host_op"));
    CHECK_EQ_INT(tp_palette_key("runtime"), tp_palette_key("cuda_runtime"));
    CHECK_EQ_INT(tp_palette_key("other"), TP_COLOR_OTHER);
    CHECK_EQ_INT(tp_palette_key("some user category"), tp_palette_key("some user category"));
    CHECK_EQ_INT(tp_palette(TP_PALETTE_SIZE), tp_palette(0));
    CHECK_EQ_INT(tp_text_color_on(0x0072B2), 0xFFFFFF);
    CHECK_EQ_INT(tp_text_color_on(TP_COLOR_HOST_OP), 0x000000);
}
