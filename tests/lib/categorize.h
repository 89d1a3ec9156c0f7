/* categorize.h: a kernel name's category by the built-in rules alone (no
 * leaf op), for tests that colour real names as a report does. */
#ifndef TP_TEST_CATEGORIZE_H
#define TP_TEST_CATEGORIZE_H

/* The category's name (static); NULL is "other".  memcpy/memset kinds by
 * their Kineto names ("Memcpy ...", "Memset ..."). */
const char *tp_test_category(const char *kernel_name);

#endif
