/* csv.h: a small CSV reader for the tests that compare with other tools'
 * reports (TraceLens's per-shape CSVs): quoted fields, "" inside quotes. */
#ifndef TP_TEST_CSV_H
#define TP_TEST_CSV_H

#include "convert/base/common.h"

#define TP_CSV_MAX_COLS 64

typedef struct csv_row {
    char *f[TP_CSV_MAX_COLS];
    int n;
} csv_row;

/* The next record from *p into r (fields are malloc'ed); false at the end. */
bool tp_csv_next(const char **p, csv_row *r);
void tp_csv_free(csv_row *r);
/* The index of the column named so in the header, -1 when none. */
int tp_csv_col(const csv_row *head, const char *name);
/* Python's repr of a list ("[[512], [141, 512]]", "['c10::BFloat16', '']")
 * as compact JSON */
void tp_py_to_json(const char *s, tp_buf *b);

#endif
