/* kernel_family.c: kernel name -> family (rules in kernel_family.h). */
#include "render/labels/kernel_family.h"

#include "convert/base/common.h"
#include "render/labels/kname.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int has(const char *s, const char *w) { return strstr(s, w) != NULL; }
static int starts(const char *s, const char *w) { return strncmp(s, w, strlen(w)) == 0; }

static int any(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (has(s, *words))
            return 1;
    return 0;
}

/* "conv" that is not the start of "convert" (XLA's loop_convert_fusion) */
static int has_conv(const char *s)
{
    for (const char *p = strstr(s, "conv"); p; p = strstr(p + 1, "conv"))
        if (strncmp(p + 4, "ert", 3) != 0)
            return 1;
    return 0;
}

static const char *classify(const char *b, const char *full)
{
    static const char *const comm[] = {"nccl",      "rccl",       "allreduce",     "all_reduce",
                                       "allgather", "all_gather", "reducescatter", "reduce_scatter",
                                       "alltoall",  "all_to_all", "sendrecv",      NULL};
    static const char *const norm[] = {"batch_norm", "batchnorm", "layer_norm",    "layernorm",
                                       "group_norm", "groupnorm", "instance_norm", "rms_norm",
                                       "rmsnorm",    "bn_fw",     "bn_bw",         NULL};
    static const char *const conv[] = {"fprop",  "dgrad", "wgrad", "winograd", "scudnn",
                                       "implicit_gemm", "fft", "im2col", NULL};
    static const char *const index[] = {"index", "gather", "scatter", "take_", NULL};
    static const char *const transpose[] = {"transpose", "permute", "nchwtonhwc", "nhwctonchw", NULL};
    static const char *const optim[] = {"multi_tensor_apply", "adam", "sgd_", NULL};
    static const char *const random[] = {"dropout", "distribution_", "philox", "curand", NULL};
    static const char *const reduce[] = {"reduce", "sum", "mean", "argmax", "argmin", "welford", NULL};
    static const char *const elt[] = {"elementwise", "pointwise", "vectorized", "unrolled", "fill",
                                      "copy",        "convert",   NULL};

    if (starts(b, "memcpy"))
        return "memcpy";
    if (starts(b, "memset"))
        return "memset";
    if (any(b, comm))
        return "nccl";
    if (starts(b, "triton"))
        return "triton";
    if (has(b, "embedding"))
        return has(b, "backward") || has(b, "bwd") || has(b, "grad") ? "embedding bwd" : "embedding fwd";
    if (has(b, "softmax"))
        return "softmax";
    if (any(b, norm))
        return "norm";
    if (has_conv(b) || any(b, conv) || has(full, "cudnn"))
        return "conv";
    if (has(b, "gemv"))
        return "gemv";
    if (has(b, "gemm") || starts(b, "cijk_") || has(b, "matmul") || has(b, "splitkreduce") || has(full, "cublas"))
        return "gemm";
    if (has(b, "catarray") || has(b, "concat") || starts(b, "cat_"))
        return "cat";
    if (any(b, index))
        return "index";
    if (has(b, "pool"))
        return "pool";
    if (any(b, transpose))
        return "transpose";
    if (any(b, optim))
        return "optimizer";
    if (has(b, "sort") || has(b, "topk"))
        return "sort";
    if (any(b, random))
        return "random";
    if (any(b, reduce))
        return "reduce";
    if (any(b, elt) || (starts(b, "loop_") && has(b, "fusion"))) /* XLA loop fusions are elementwise */
        return "elementwise";
    return "other";
}

static char *lower(const char *s)
{
    char *r = tp_xstrdup(s ? s : "");
    for (char *p = r; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return r;
}

const char *tp_kernel_family(const char *name)
{
    char *base = tp_kname_base(name);
    char *b = lower(base), *full = lower(name);
    const char *f = classify(b, full);
    free(base), free(b), free(full);
    return f;
}

int tp_kernel_family_rank(const char *family)
{
    static const char *const order[] = {"gemm",      "gemv",          "conv",          "elementwise", "reduce",
                                        "norm",      "softmax",       "pool",          "cat",         "index",
                                        "transpose", "embedding fwd", "embedding bwd", "memcpy",      "memset",
                                        "nccl",      "triton",        "optimizer",     "sort",        "random"};
    if (!family)
        return 1000;
    for (int i = 0; i < (int)(sizeof order / sizeof order[0]); i++)
        if (strcmp(order[i], family) == 0)
            return i;
    return strcmp(family, "other") == 0 ? 1000 : 500;
}
