/* eff_text.c: short forms of efficiency rows (eff_text.h). */
#include "report/out/eff_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void put(char *buf, size_t n, size_t *at, const char *s, size_t len)
{
    for (size_t i = 0; i < len && *at + 1 < n; i++)
        buf[(*at)++] = s[i];
    buf[*at < n ? *at : n - 1] = 0;
}

/* "[a,b,c]" at p as "axbxc"; returns past the ']' */
static const char *flat(const char *p, char *buf, size_t n, size_t *at)
{
    for (p++; *p && *p != ']'; p++)
        put(buf, n, at, *p == ',' ? "x" : p, 1);
    return *p ? p + 1 : p;
}

/* input_dims is compact JSON written by tp_jv_write: [[a,b],[],[[c],[d]]] */
void tp_eff_shape(const tp_eff_row *r, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    const char *p = r->input_dims;
    if (!p || *p != '[')
        return;
    bool first = true;
    for (p++; *p == '[';) {
        bool list = p[1] == '[';
        if (p[1] != ']') {
            if (!first)
                put(buf, n, &at, ", ", 2);
            first = false;
        }
        if (list) { /* a tensor list: {3x4, 3x4} */
            put(buf, n, &at, "{", 1);
            for (p++; *p == '[';) {
                p = flat(p, buf, n, &at);
                if (*p == ',')
                    p++, put(buf, n, &at, ", ", 2);
            }
            put(buf, n, &at, "}", 1);
            p += *p == ']';
        } else
            p = flat(p, buf, n, &at);
        if (*p == ',')
            p++;
    }
    if (at + 1 >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
}

static const struct {
    const char *cxx, *s;
} short_dtypes[] = {
    {"c10::BFloat16", "bf16"},      {"c10::Half", "fp16"},          {"float", "fp32"},
    {"double", "fp64"},             {"c10::Float8_e4m3fn", "fp8e4m3"}, {"c10::Float8_e5m2", "fp8e5m2"},
    {"c10::Float8_e4m3fnuz", "fp8e4m3fnuz"}, {"c10::Float8_e5m2fnuz", "fp8e5m2fnuz"}, {"long int", "i64"},
    {"int", "i32"},                 {"short int", "i16"},           {"signed char", "i8"},
    {"unsigned char", "u8"},        {"bool", "bool"},
};

void tp_eff_dtype(const tp_eff_row *r, char *buf, size_t n)
{
    buf[0] = 0;
    /* dtypes is a compact JSON list of strings; the first that names a dtype */
    const char *p = r->dtypes;
    while (p && (p = strchr(p, '"')) != NULL) {
        const char *e = strchr(p + 1, '"');
        if (!e)
            return;
        size_t len = (size_t)(e - p - 1);
        for (size_t i = 0; i < sizeof short_dtypes / sizeof *short_dtypes; i++)
            if (strlen(short_dtypes[i].cxx) == len && memcmp(short_dtypes[i].cxx, p + 1, len) == 0) {
                snprintf(buf, n, "%s", short_dtypes[i].s);
                return;
            }
        if (len && strncmp(p + 1, "Scalar", 6) != 0 && strncmp(p + 1, "TensorList", 10) != 0) {
            snprintf(buf, n, "%.*s", (int)len, p + 1);
            return;
        }
        p = e + 1;
    }
}

void tp_eff_num(char *buf, size_t n, double v)
{
    if (!(v >= 0))
        snprintf(buf, n, "-");
    else if (v >= 100)
        snprintf(buf, n, "%.0f", v);
    else if (v >= 10)
        snprintf(buf, n, "%.1f", v);
    else if (v >= 1)
        snprintf(buf, n, "%.2f", v);
    else if (v == 0)
        snprintf(buf, n, "0");
    else if (v < 0.001) { /* no exponents in tables: two significant digits in fixed form */
        int dec = 1 - (int)floor(log10(v));
        snprintf(buf, n, "%.*f", dec > 12 ? 12 : dec, v);
    }
    else
        snprintf(buf, n, "%.3g", v);
}

void tp_eff_pct(char *buf, size_t n, double f)
{
    if (!(f >= 0))
        snprintf(buf, n, "-");
    else if (f * 100 >= 10)
        snprintf(buf, n, "%.0f%%", f * 100);
    else
        snprintf(buf, n, "%.1f%%", f * 100);
}
