/* op_inputs.c: read an op's recorded inputs (op_models.h) and the element
 * sizes of PyTorch's dtypes. */
#include "report/perf_models/op_models_int.h"

#include <string.h>

/* PyTorch's C++ dtype names as the profiler writes them ("Input type"). */
static const struct {
    const char *name;
    int size;
    int matrix_peak; /* peak class of a GEMM in this dtype, -1 none */
    bool is_float;
} dtypes[] = {
    {"float", 4, TP_PEAK_MATRIX_FP32, true},
    {"double", 8, -1, true},
    {"c10::Half", 2, TP_PEAK_MATRIX_FP16, true},
    {"c10::BFloat16", 2, TP_PEAK_MATRIX_BF16, true},
    {"c10::Float8_e4m3fn", 1, TP_PEAK_MATRIX_FP8, true},
    {"c10::Float8_e5m2", 1, TP_PEAK_MATRIX_FP8, true},
    {"c10::Float8_e4m3fnuz", 1, TP_PEAK_MATRIX_FP8, true},
    {"c10::Float8_e5m2fnuz", 1, TP_PEAK_MATRIX_FP8, true},
    {"c10::Float8_e8m0fnu", 1, -1, true},
    {"c10::Float4_e2m1fn_x2", 1, -1, true}, /* two values per byte; sizes count bytes */
    {"long int", 8, -1, false},
    {"long", 8, -1, false},
    {"int", 4, -1, false},
    {"short int", 2, -1, false},
    {"short", 2, -1, false},
    {"signed char", 1, -1, false},
    {"unsigned char", 1, -1, false},
    {"bool", 1, -1, false},
    {"unsigned int", 4, -1, false},
    {"unsigned short", 2, -1, false},
    {"long unsigned int", 8, -1, false},
    {"c10::complex<float>", 8, -1, true},
    {"c10::complex<double>", 16, -1, true},
    {"c10::complex<c10::Half>", 4, -1, true},
    {"c10::qint8", 1, -1, false},
    {"c10::quint8", 1, -1, false},
    {"c10::qint32", 4, -1, false},
};

int tp_op_dtype(const char *s, size_t n, bool *is_float, int *matrix_peak)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (strlen(dtypes[i].name) == n && memcmp(dtypes[i].name, s, n) == 0) {
            if (is_float)
                *is_float = dtypes[i].is_float;
            if (matrix_peak)
                *matrix_peak = dtypes[i].matrix_peak;
            return dtypes[i].size;
        }
    return 0;
}

/* One "Input Dims" entry with its type: a tensor's sizes, or not a tensor. */
static int read_input(const tp_jv *dims, const tp_jv *type, tp_op_input *in, const char **why)
{
    in->rank = -1;
    if (type && type->type == TP_JV_STRING) {
        in->type = type->s;
        in->type_len = type->len;
        in->elem_size = tp_op_dtype(type->s, type->len, &in->is_float, NULL);
    }
    if (!dims || dims->type != TP_JV_ARRAY) {
        *why = "an \"Input Dims\" entry is not a list";
        return -1;
    }
    if (dims->n && dims->items[0].type == TP_JV_ARRAY)
        return 0; /* a tensor list */
    if (dims->n > TP_OP_MAX_RANK) {
        *why = "a tensor of more than 8 dimensions";
        return -1;
    }
    /* [] is a 0-dim tensor when its type is a dtype, else a scalar or an absent tensor */
    if (dims->n == 0 && in->elem_size == 0)
        return 0;
    for (uint32_t k = 0; k < dims->n; k++) {
        int64_t v;
        if (tp_jv_int(&dims->items[k], &v) != 0 || v < 0) {
            *why = "a tensor size that is not a non-negative integer";
            return -1;
        }
        if (v > (INT64_C(1) << 40)) { /* a trillion elements in one dimension: not a real tensor */
            *why = "a tensor size beyond 2^40";
            return -1;
        }
        in->dims[k] = v;
    }
    if (in->elem_size == 0) {
        *why = "a tensor of an unknown dtype";
        return -1;
    }
    in->rank = (int)dims->n;
    return 0;
}

int tp_op_inputs_parse(const char *args, size_t len, tp_jdoc *doc, tp_op_inputs *in, const char **why)
{
    memset(in, 0, sizeof *in);
    const tp_jv *root;
    tp_err err = {0};
    if (tp_jv_parse_all(doc, args, len, &root, &err) != 0 || root->type != TP_JV_OBJECT) {
        *why = "args that are not a JSON object";
        return -1;
    }
    const tp_jv *dims = tp_jv_get(root, "Input Dims"), *types = tp_jv_get(root, "Input type");
    if (!dims) {
        *why = "no \"Input Dims\" recorded";
        return -1;
    }
    if (dims->type != TP_JV_ARRAY || (types && types->type != TP_JV_ARRAY)) {
        *why = "\"Input Dims\" or \"Input type\" is not a list";
        return -1;
    }
    if (!types || types->n != dims->n) {
        *why = "\"Input type\" missing or not one per input";
        return -1;
    }
    if (dims->n > TP_OP_MAX_INPUTS) {
        *why = "more than 48 inputs";
        return -1;
    }
    const tp_jv *conc = tp_jv_get(root, "Concrete Inputs");
    if (conc && conc->type != TP_JV_ARRAY)
        conc = NULL;
    in->n = dims->n;
    for (uint32_t i = 0; i < dims->n; i++) {
        if (read_input(&dims->items[i], &types->items[i], &in->in[i], why) != 0)
            return -1;
        const tp_jv *c = conc && i < conc->n ? &conc->items[i] : NULL;
        if (c && c->type == TP_JV_STRING) {
            in->in[i].concrete = c->s;
            in->in[i].concrete_len = c->len;
        }
    }
    in->dims_v = dims;
    in->types_v = types;
    in->strides_v = tp_jv_get(root, "Input Strides");
    return 0;
}

/* ---- helpers for the models ---- */

bool tp_op_mul(uint64_t *acc, uint64_t v)
{
    return !__builtin_mul_overflow(*acc, v, acc);
}

bool tp_op_add(uint64_t *acc, uint64_t v)
{
    return !__builtin_add_overflow(*acc, v, acc);
}

bool tp_op_add_bytes(uint64_t *acc, uint64_t n, int elem_size)
{
    return tp_op_mul(&n, (uint64_t)elem_size) && tp_op_add(acc, n);
}

bool tp_op_numel(const tp_op_input *x, uint64_t *n)
{
    *n = 1;
    for (int k = 0; k < x->rank; k++)
        if (!tp_op_mul(n, (uint64_t)x->dims[k]))
            return false;
    return x->rank >= 0;
}

/* The concrete text equals s. */
static bool conc_is(const tp_op_input *x, const char *s)
{
    size_t n = strlen(s);
    return x->concrete && x->concrete_len == n && memcmp(x->concrete, s, n) == 0;
}

int tp_op_conc_bool(const tp_op_input *x)
{
    if (conc_is(x, "True") || conc_is(x, "true") || conc_is(x, "1"))
        return 1;
    if (conc_is(x, "False") || conc_is(x, "false") || conc_is(x, "0"))
        return 0;
    return -1;
}

/* "[16, 16]", "16", "[]": up to max integers; the count, or -1 when the
 * text is none of these. */
int tp_op_conc_ints(const tp_op_input *x, int64_t *out, int max)
{
    if (!x->concrete)
        return -1;
    const char *p = x->concrete, *end = p + x->concrete_len;
    bool list = p < end && *p == '[';
    if (list)
        p++;
    int n = 0;
    for (;;) {
        while (p < end && *p == ' ')
            p++;
        if (list && p < end && *p == ']' && n == 0) {
            p++;
            break;
        }
        bool neg = p < end && *p == '-';
        if (neg)
            p++;
        if (p >= end || *p < '0' || *p > '9' || n >= max)
            return -1;
        int64_t v = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                return -1;
            v = v * 10 + (*p++ - '0');
        }
        out[n++] = neg ? -v : v;
        while (p < end && *p == ' ')
            p++;
        if (list && p < end && *p == ',') {
            p++;
            continue;
        }
        if (list && p < end && *p == ']')
            p++;
        else if (list)
            return -1;
        break;
    }
    return p == end ? n : -1;
}

int tp_op_conc_bools(const tp_op_input *x, int *out, int max)
{
    if (!x->concrete)
        return -1;
    const char *p = x->concrete, *end = p + x->concrete_len;
    if (p >= end || *p != '[')
        return -1;
    int n = 0;
    for (p++; p < end;) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        if (p < end && *p == ']')
            return p + 1 == end ? n : -1;
        if (n >= max)
            return -1;
        if (end - p >= 4 && memcmp(p, "True", 4) == 0)
            out[n++] = 1, p += 4;
        else if (end - p >= 5 && memcmp(p, "False", 5) == 0)
            out[n++] = 0, p += 5;
        else
            return -1;
    }
    return -1;
}

int tp_op_scalar_type_size(int64_t code)
{
    /* c10::ScalarType: Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf,
     * ComplexFloat, ComplexDouble, Bool, QInt8, QUInt8, QInt32, BFloat16; 23-26 the fp8 types */
    static const int size[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2};
    if (code >= 0 && code < (int64_t)(sizeof size / sizeof *size))
        return size[code];
    return code >= 23 && code <= 26 ? 1 : 0;
}
