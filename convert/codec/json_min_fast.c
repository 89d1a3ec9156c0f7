/* json_min_fast.c: the args minifier's fast path (see json_min.h).
 *
 * tp_json_min walks the grammar token by token; on a 1 GB Kineto trace
 * that was 0.33 s for 0.4 GB of args (~10 tokens an object).  This path
 * works on 64-byte blocks with AVX2 and bit masks instead, in two passes
 * over one value:
 *
 *  1. Strip: find the strings (a prefix XOR of the quote mask), drop the
 *     spaces and newlines outside them, and store what is left through an
 *     8-byte shuffle table.  A backslash, a control character other than a
 *     newline outside strings, or a byte >= 0x80 anywhere declines (those
 *     need the slow path's escapes and UTF-8 repairs), and so does space
 *     between two bytes of tokens ("1 2", "nu ll": stripped, they would
 *     read as one).
 *  2. Check the stripped text.  Without whitespace, JSON's grammar is a
 *     rule on each pair of neighbouring bytes outside strings, given the
 *     innermost bracket: what may follow '{', '[', ':', ',', a closing
 *     bracket, a key's or a value's closing quote, a number byte.  A
 *     string is a key when the byte before its opening quote is '{' or an
 *     object's ','; its closing quote is found by adding that quote's bit
 *     to the in-string mask (the carry runs to the end of the string).
 *     Brackets are matched one by one (a few per object); they also give
 *     the bracket each comma is in.  Digit-only numbers are checked by
 *     mask (no leading zero); a number with any other byte goes through
 *     tp_json_token_ok.
 *
 * The top-level value must be an object or array closed by the last byte,
 * nested at most 64 deep.  Anything this path cannot prove valid is left
 * to the slow path, which decides (and may repair or refuse): declining
 * costs time, never a different output.  The output for what it accepts
 * is the slow path's, byte for byte: JSON without whitespace is unique. */
#include "convert/codec/json_lex.h"
#include "convert/codec/json_min.h"
#include "convert/base/simd.h"

#include <pthread.h>
#include <string.h>

#ifdef TP_HAVE_AVX2_PATHS
#define FAST TP_AVX2

/* shuffle[m]: the indices of the bits set in the byte m, in order, for
 * vpshufb (an 8-byte group's kept bytes moved to its front). */
static uint64_t shuffle[256];
static pthread_once_t shuffle_once = PTHREAD_ONCE_INIT;

static void make_shuffle(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint64_t v = 0;
        unsigned k = 0;
        for (unsigned i = 0; i < 8; i++)
            if (m >> i & 1)
                v |= (uint64_t)i << (8 * k++);
        shuffle[m] = v;
    }
}

static bool fast_wanted(void)
{
    if (!tp_simd_avx2())
        return false;
    pthread_once(&shuffle_once, make_shuffle); /* the writer's threads minify too */
    return true;
}

/* The kept bytes of 32 (bit i of keep: byte i) stored at o, in order;
 * returns the new end.  Writes up to 8 bytes past it. */
FAST static inline unsigned char *compress32(unsigned char *o, __m256i v, uint32_t keep)
{
    const uint64_t eight = 0x0808080808080808u; /* vpshufb indexes within 16-byte lanes */
    __m256i idx = _mm256_set_epi64x((long long)(shuffle[keep >> 24] + eight), (long long)shuffle[keep >> 16 & 255],
                                    (long long)(shuffle[keep >> 8 & 255] + eight), (long long)shuffle[keep & 255]);
    __m256i r = _mm256_shuffle_epi8(v, idx);
    uint64_t w[4];
    _mm256_storeu_si256((__m256i *)(void *)w, r);
    for (int g = 0; g < 4; g++) {
        memcpy(o, &w[g], 8);
        o += __builtin_popcount(keep >> (8 * g) & 255);
    }
    return o;
}

/* Pass 1: s[0..n) without spaces and newlines outside strings, at o.
 * NULL when it holds a byte this path leaves to the slow one. */
FAST static unsigned char *strip(unsigned char *o, const unsigned char *s, size_t n)
{
    const __m256i below = _mm256_set1_epi8(0x20);
    uint64_t in_str = 0; /* all ones while a string runs on into the next block */
    bool token_last = false, space_after_token = false; /* what the byte before the block is */
    unsigned char tail[64];
    for (size_t at = 0; at < n; at += 64) {
        const unsigned char *p = s + at;
        uint64_t valid = ~(uint64_t)0;
        unsigned first = 0; /* the block's first new byte */
        if (n - at < 64) {
            if (n >= 64) { /* the last 64 bytes, the ones done masked off: no copy to stall on */
                p = s + n - 64;
                first = (unsigned)(64 - (n - at));
                valid <<= first;
            } else { /* a short value, padded with spaces (dropped, or kept in an unterminated string, which pass 2 refuses) */
                memset(tail, ' ', sizeof tail);
                memcpy(tail, p, n);
                p = tail;
            }
        }
        tp_block64 b = tp_load64(p);
        uint64_t quote = tp_eq64(b, '"') & valid, nl = tp_eq64(b, '\n');
        /* signed: the controls and every byte >= 0x80 */
        uint64_t low = tp_mask64(_mm256_cmpgt_epi8(below, b.lo), _mm256_cmpgt_epi8(below, b.hi)) & valid;
        if (tp_eq64(b, '\\') & valid)
            return NULL;
        uint64_t str = tp_prefix_xor(quote) ^ in_str;
        in_str = (uint64_t)((int64_t)str >> 63);
        if (low & ~(nl & ~str))
            return NULL;
        uint64_t space = (tp_eq64(b, ' ') | nl) & ~str & valid, drop = space | ~valid;
        /* Space between two bytes of tokens ("1 2", "nu ll") would join
         * them: refused.  The runs of space after a token byte are carried
         * to their ends by an add; a token byte must not be there. */
        tp_block64 l = tp_or64(b, 0x20); /* brackets of both kinds */
        uint64_t token = valid & ~str & ~quote & ~space & ~(tp_eq64(l, '{') | tp_eq64(l, '}') | tp_eq64(b, ':') | tp_eq64(b, ','));
        uint64_t starts = (token << 1 | (uint64_t)(token_last | space_after_token) << first) & space, ends;
        bool runs_on = __builtin_uaddll_overflow(space, starts, (unsigned long long *)&ends);
        if ((ends & ~space & token) || (space_after_token && (token >> first & 1)))
            return NULL;
        token_last = token >> 63;
        space_after_token = runs_on;
        o = compress32(o, b.lo, (uint32_t)~drop);
        o = compress32(o, b.hi, (uint32_t)(~drop >> 32));
    }
    return o;
}

/* What pass 2 carries from one block to the next: the last byte's class
 * (bit 63 of each mask) and the state of strings and brackets. */
typedef struct carry {
    uint64_t obj_open, arr_open, colon, obj_comma, arr_comma, close, key_end, value_end, token, zero_start;
    bool key_runs, value_runs; /* a key / value string runs on into the next block */
    int depth;
    uint64_t stack; /* bit d: the bracket open at depth d+1 is '[' */
    const unsigned char *checked; /* numbers up to here have been checked */
} carry;

#define PREV(m, c) ((m) << 1 | (c) >> 63)

/* The brackets in a block, in order: matched, counted, and the comma
 * context (all ones from the byte after a '[' to its ']') as a mask.
 * false when they do not match, nest too deep, or close the value before
 * the last byte. */
FAST static bool brackets(carry *c, const unsigned char *p, uint64_t br, size_t last, uint64_t *in_arr)
{
    uint64_t toggle = 0;
    bool arr = c->depth && (c->stack >> (c->depth - 1) & 1);
    uint64_t start = arr ? ~(uint64_t)0 : 0;
    while (br) {
        unsigned i = (unsigned)__builtin_ctzll(br);
        br &= br - 1;
        unsigned char ch = p[i];
        bool now;
        if (ch == '{' || ch == '[') {
            if (c->depth >= 64)
                return false;
            now = ch == '[';
            c->stack = (c->stack & ~((uint64_t)1 << c->depth)) | (uint64_t)now << c->depth;
            c->depth++;
        } else {
            if (c->depth == 0 || (bool)(c->stack >> (c->depth - 1) & 1) != (ch == ']'))
                return false;
            if (--c->depth == 0 && (i != last || br))
                return false; /* the value ended: nothing may follow */
            now = c->depth && (c->stack >> (c->depth - 1) & 1);
        }
        if (now != arr && i < 63)
            toggle |= (uint64_t)1 << (i + 1);
        arr = now;
    }
    *in_arr = tp_prefix_xor(toggle) ^ start;
    return true;
}

/* The number or literal around p (a byte the masks found outside strings
 * and brackets) checked by the grammar.  Every such byte but digits comes
 * here, so a byte no token can hold ("1x2") is refused by its own call. */
static bool number_ok(carry *c, const unsigned char *p, const unsigned char *begin, const unsigned char *end)
{
    if (p < c->checked)
        return true;
    if (!tp_json_token_char(*p))
        return false;
    const unsigned char *a = p, *z = p;
    while (a > begin && tp_json_token_char(a[-1]))
        a--;
    while (z < end && tp_json_token_char(*z))
        z++;
    c->checked = z;
    return tp_json_token_ok((const char *)a, (size_t)(z - a));
}

/* Pass 2: is the stripped text [begin, end) one JSON object or array? */
FAST static bool check(const unsigned char *begin, const unsigned char *end)
{
    size_t n = (size_t)(end - begin);
    if (n < 2 || (*begin != '{' && *begin != '['))
        return false;
    carry c;
    memset(&c, 0, sizeof c);
    c.checked = begin;
    uint64_t in_str = 0;
    const __m256i zero = _mm256_set1_epi8('0' - 1), nine = _mm256_set1_epi8('9' + 1);
    for (size_t at = 0; at < n; at += 64) {
        const unsigned char *p = begin + at; /* the buffer has 64 bytes of room past end */
        uint64_t valid = n - at >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (n - at)) - 1;
        tp_block64 b = tp_load64(p);
        uint64_t quote = tp_eq64(b, '"') & valid;
        uint64_t str = tp_prefix_xor(quote) ^ in_str; /* opening quote to before the closing one */
        in_str = (uint64_t)((int64_t)str >> 63);
        uint64_t out = ~str & valid, open_q = quote & str, close_q = quote & ~str;
        uint64_t obj_open = tp_eq64(b, '{') & out, arr_open = tp_eq64(b, '[') & out, obj_close = tp_eq64(b, '}') & out,
                 arr_close = tp_eq64(b, ']') & out, colon = tp_eq64(b, ':') & out, comma = tp_eq64(b, ',') & out;
        uint64_t close = obj_close | arr_close;
        uint64_t token = out & ~(quote | obj_open | arr_open | close | colon | comma);
        uint64_t digit = tp_mask64(_mm256_and_si256(_mm256_cmpgt_epi8(b.lo, zero), _mm256_cmpgt_epi8(nine, b.lo)),
                                _mm256_and_si256(_mm256_cmpgt_epi8(b.hi, zero), _mm256_cmpgt_epi8(nine, b.hi)));
        uint64_t in_arr = 0;
        uint64_t br = obj_open | arr_open | close;
        if (br && !brackets(&c, p, br, n - at - 1, &in_arr))
            return false;
        if (!br && c.depth && (c.stack >> (c.depth - 1) & 1))
            in_arr = ~(uint64_t)0;
        uint64_t obj_comma = comma & ~in_arr, arr_comma = comma & in_arr;
        uint64_t value_start = obj_open | arr_open | open_q | token;
        /* strings: a key after '{' or an object's ','; a value after ':', '[' or an array's ',' */
        uint64_t key_q = open_q & PREV(obj_open | obj_comma, c.obj_open | c.obj_comma);
        uint64_t value_q = open_q & PREV(colon | arr_open | arr_comma, c.colon | c.arr_open | c.arr_comma);
        uint64_t key_end, value_end;
        bool key_runs = __builtin_uaddll_overflow(str, key_q | (uint64_t)c.key_runs, (unsigned long long *)&key_end);
        bool value_runs =
            __builtin_uaddll_overflow(str, value_q | (uint64_t)c.value_runs, (unsigned long long *)&value_end);
        key_end &= ~str & close_q;
        value_end &= ~str & close_q;
        uint64_t token_start = token & ~PREV(token, c.token), zero_start = token_start & tp_eq64(b, '0');
        uint64_t bad = (PREV(obj_open, c.obj_open) & ~(open_q | obj_close)) |
                       (PREV(arr_open, c.arr_open) & ~(value_start | arr_close)) |
                       (PREV(colon, c.colon) & ~value_start) | (PREV(obj_comma, c.obj_comma) & ~open_q) |
                       (PREV(arr_comma, c.arr_comma) & ~value_start) |
                       (PREV(close, c.close) & ~(comma | close)) | (PREV(key_end, c.key_end) & ~colon) |
                       (PREV(value_end, c.value_end) & ~(comma | close)) |
                       (PREV(token, c.token) & ~(token | comma | close)) |
                       (PREV(zero_start, c.zero_start) & digit) | (open_q & ~(key_q | value_q));
        if (bad & valid)
            return false;
        for (uint64_t other = token & ~digit; other; other &= other - 1)
            if (!number_ok(&c, p + __builtin_ctzll(other), begin, end))
                return false;
        c.obj_open = obj_open, c.arr_open = arr_open, c.colon = colon, c.obj_comma = obj_comma;
        c.arr_comma = arr_comma, c.close = close, c.key_end = key_end, c.value_end = value_end;
        c.token = token, c.zero_start = zero_start, c.key_runs = key_runs, c.value_runs = value_runs;
    }
    return c.depth == 0 && !in_str && (end[-1] == '}' || end[-1] == ']');
}

bool tp_json_min_fast(tp_buf *b, const char *s, size_t n)
{
    if (!fast_wanted() || n == 0)
        return false;
    /* pass 1 pads the last block to 64 bytes and stores up to 8 bytes
     * past its end; pass 2 loads 64 bytes from below the end */
    TP_GROW(b->data, b->cap, b->len + n + 192);
    unsigned char *o = (unsigned char *)b->data + b->len;
    unsigned char *e = strip(o, (const unsigned char *)s, n);
    if (!e || !check(o, e))
        return false;
    b->len = (size_t)((char *)e - b->data);
    b->data[b->len] = 0;
    return true;
}

#else

bool tp_json_min_fast(tp_buf *b, const char *s, size_t n)
{
    (void)b, (void)s, (void)n;
    return false;
}

#endif
