/* csv.c: the CSV reader of the tests (csv.h). */
#include "tests/lib/csv.h"

#include <stdlib.h>
#include <string.h>


/* The next record from *p into r (fields are malloc'ed); false at the end. */
bool tp_csv_next(const char **p, csv_row *r)
{
    const char *s = *p;
    if (!*s)
        return false;
    r->n = 0;
    for (;;) {
        tp_buf b = {0};
        tp_buf_putc(&b, 0);
        b.len = 0;
        if (*s == '"') {
            for (s++; *s; s++) {
                if (*s == '"' && s[1] == '"')
                    tp_buf_putc(&b, '"'), s++;
                else if (*s == '"') {
                    s++;
                    break;
                } else
                    tp_buf_putc(&b, *s);
            }
        } else
            while (*s && *s != ',' && *s != '\n' && *s != '\r')
                tp_buf_putc(&b, *s++);
        tp_buf_putc(&b, 0);
        if (r->n < TP_CSV_MAX_COLS)
            r->f[r->n++] = b.data;
        else
            free(b.data);
        if (*s == ',') {
            s++;
            continue;
        }
        while (*s == '\r' || *s == '\n')
            s++;
        break;
    }
    *p = s;
    return true;
}

void tp_csv_free(csv_row *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

int tp_csv_col(const csv_row *head, const char *name)
{
    for (int i = 0; i < head->n; i++)
        if (strcmp(head->f[i], name) == 0)
            return i;
    return -1;
}

/* Python's repr of a list ("[[512], [141, 512]]", "['c10::BFloat16', '']")
 * as compact JSON */
void tp_py_to_json(const char *s, tp_buf *b)
{
    b->len = 0;
    for (; *s; s++)
        if (*s == '\'')
            tp_buf_putc(b, '"');
        else if (*s != ' ' || (b->len && b->data[b->len - 1] != ',' && b->data[b->len - 1] != '['))
            tp_buf_putc(b, *s);
    tp_buf_putc(b, 0);
    b->len--;
}

