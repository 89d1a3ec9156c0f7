/* xplane_annot.c: what the derivation engine (and the report's op keys) get
 * of a device event: its framework op, HLO op levels, module and source,
 * from the stats tf_op, `level 0`, name, hlo_op, hlo_module, program_id and
 * source.  Op names are parsed once per distinct name (tp_tfop_parse), and a
 * ref_value's parse, HLO split and module name are remembered with its stat
 * metadata, as the same values repeat on every event. */
#include "convert/read/xplane/xplane_read_int.h"

#include <stdio.h>
#include <stdlib.h>

/* tp_tfop_parse once per distinct op name: index into r->ops. */
static uint32_t parse_op(xp_reader *r, const char *s, size_t n)
{
    tp_str op = tp_intern(r->t, s, n);
    uint32_t i = tp_i64map_get(&r->opcache, op);
    if (i == TP_I64MAP_EMPTY) {
        tp_annot p;
        memset(&p, 0, sizeof p);
        tp_tfop_parse(r->t, s, n, &p);
        TP_GROW(r->ops, r->ops_cap, r->nops + 1);
        r->ops[r->nops] = p;
        i = (uint32_t)r->nops++;
        tp_i64map_put(&r->opcache, op, i);
    }
    return i;
}

/* The op of a text stat; "jit(f)/dot_general" (no type) parsed as "path:".
 * A ref_value's op is remembered with its stat metadata. */
static uint32_t stat_op(xp_reader *r, const xp_stat *v, bool colon)
{
    uint32_t *cache = NULL;
    if (v->type == XS_REF && v->ref != TP_I64MAP_EMPTY) {
        cache = colon ? &r->sm[v->ref].op_colon : &r->sm[v->ref].op;
        if (*cache != TP_NONE)
            return *cache;
    }
    uint32_t i;
    if (!colon) {
        i = parse_op(r, (const char *)v->s, v->len);
    } else {
        tp_buf b = {0};
        tp_buf_put(&b, v->s, v->len);
        tp_buf_putc(&b, ':');
        i = parse_op(r, b.data, b.len);
        tp_buf_free(&b);
    }
    if (cache)
        *cache = i;
    return i;
}

/* hlo_op levels, joined by "::" upstream: the engine wants TP_DERIVE_SEP. */
static void split_hlo(xp_reader *r, const xp_stat *hlo, tp_str *ops, tp_str *low)
{
    xp_smeta *c = hlo->type == XS_REF && hlo->ref != TP_I64MAP_EMPTY ? &r->sm[hlo->ref] : NULL;
    if (c && c->hlo_done) {
        *ops = c->hlo_ops;
        *low = c->hlo_low;
        return;
    }
    *ops = *low = 0;
    tp_buf b = {0};
    size_t last = 0;
    for (size_t i = 0; i < hlo->len; i++) {
        if (i + 1 < hlo->len && hlo->s[i] == ':' && hlo->s[i + 1] == ':') {
            if (b.len && b.data[b.len - 1] != TP_DERIVE_SEP)
                tp_buf_putc(&b, TP_DERIVE_SEP);
            i++;
            last = b.len;
            continue;
        }
        tp_buf_putc(&b, (char)hlo->s[i]);
    }
    if (b.len && b.data[b.len - 1] == TP_DERIVE_SEP)
        b.len--;
    if (b.len) {
        *ops = tp_intern(r->t, b.data, b.len);
        *low = tp_intern(r->t, b.data + last, b.len - last);
    }
    tp_buf_free(&b);
    if (c) {
        c->hlo_done = true;
        c->hlo_ops = *ops;
        c->hlo_low = *low;
    }
}

/* "<module>(<program id>)" */
static tp_str module_name(xp_reader *r, const xp_stat *mod, int64_t prog)
{
    xp_smeta *c = mod->type == XS_REF && mod->ref != TP_I64MAP_EMPTY ? &r->sm[mod->ref] : NULL;
    if (c && c->module_done && c->module_prog == prog)
        return c->module;
    tp_buf b = {0};
    tp_buf_put(&b, mod->s, mod->len);
    tp_buf_printf(&b, "(%lld)", (long long)prog);
    tp_str id = tp_intern(r->t, b.data, b.len);
    tp_buf_free(&b);
    if (c) {
        c->module_done = true;
        c->module_prog = prog;
        c->module = id;
    }
    return id;
}

void xp_annotate(xp_reader *r, uint32_t ev, int64_t group, bool op_source, const xp_emeta *m, tp_annot *out,
                 tp_str *hlo_key)
{
    tp_annot a;
    memset(&a, 0, sizeof a);
    a.event = ev;
    a.group = group;
    a.scope_inst = TP_NONE;
    if (op_source)
        a.flags |= TP_ANNOT_OP_SOURCE;
    const xp_stat *tf = NULL, *lvl0 = NULL, *hlo = NULL, *mod = NULL, *pid = NULL, *name = NULL, *src = NULL;
    for (size_t i = 0; i < r->st.n; i++) {
        const xp_stat *s = &r->st.v[i];
        switch (stat_wk(r->pl, s)) {
        case WK_TF_OP: tf = s; break;
        case WK_LEVEL0: lvl0 = s; break;
        case WK_HLO_OP: hlo = s; break;
        case WK_HLO_MODULE: mod = s; break;
        case WK_PROGRAM_ID: pid = s; break;
        case WK_NAME: name = s; break;
        case WK_SOURCE: src = s; break;
        default: break;
        }
    }
    tp_trace *t = r->t;
    int64_t prog = 0;
    bool has_prog = pid && stat_int(pid, &prog);
    if (mod && stat_text(mod) && mod->len)
        a.module = has_prog ? module_name(r, mod, prog) : stat_str(r, mod);
    if (hlo && stat_text(hlo) && hlo->len) {
        split_hlo(r, hlo, &a.hlo_ops, &a.low_name);
        if (hlo_key && a.hlo_ops) { /* the outermost level: what was launched (a fusion, a while loop...) */
            tp_buf b = {0};
            const char *h = tp_str_get(t, a.hlo_ops);
            size_t hl = tp_str_len(t, a.hlo_ops);
            const char *sep = memchr(h, TP_DERIVE_SEP, hl);
            tp_buf_put(&b, h, sep ? (size_t)(sep - h) : hl);
            if (mod && stat_text(mod) && mod->len) {
                tp_buf_puts(&b, " (");
                tp_buf_put(&b, mod->s, mod->len);
                tp_buf_putc(&b, ')');
            }
            *hlo_key = tp_intern(t, b.data, b.len);
            tp_buf_free(&b);
        }
        if (has_prog) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)prog);
            a.hlo_prefix = tp_intern_cstr(t, buf);
        } else if (mod && stat_text(mod)) {
            a.hlo_prefix = stat_str(r, mod);
        }
    }
    if (!a.low_name)
        a.low_name = m ? m->shown : 0;
    if (!r->plane_is_gpu) /* TPU: the runtime writes XLA Modules / XLA Ops lines itself */
        a.module = a.hlo_ops = 0;
    /* the framework op: tf_op (or the 2020 `level 0`); JAX GPU kernels carry
     * tf_op "XlaModule:" and their op path in `name` */
    const xp_stat *op = tf && stat_text(tf) && tf->len ? tf : (lvl0 && stat_text(lvl0) && lvl0->len ? lvl0 : NULL);
    if (op && op->len == 10 && memcmp(op->s, "XlaModule:", 10) == 0)
        op = NULL;
    uint32_t oi = TP_NONE;
    if (op)
        oi = stat_op(r, op, false);
    else if (hlo && name && stat_text(name) && name->len)
        oi = stat_op(r, name, !memchr(name->s, ':', name->len));
    if (oi != TP_NONE) {
        a.op = r->ops[oi].op;
        a.op_display = r->ops[oi].op_display;
        a.scopes = r->ops[oi].scopes;
    }
    if (src && stat_text(src) && src->len)
        a.source = stat_str(r, src);
    *out = a;
}
