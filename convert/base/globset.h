/* globset.h: an ordered set of shell globs (fnmatch without flags, or with
 * FNM_CASEFOLD) asked "which pattern of the smallest id matches this
 * name?"; the answer equals trying the patterns one by one in id order and
 * taking the first that fnmatch accepts, without costing patterns x names:
 *
 * - a pattern without glob characters is an exact name, `lit*` a prefix,
 *   `*lit` a suffix, `*lit*` a substring, `*` (any run of stars) matches
 *   every name: tries forward and backward and an Aho-Corasick automaton
 *   answer these in O(length of the name) hash lookups;
 * - any other pattern (`?`, `[..]`, `\`, stars inside) is tried with fnmatch
 *   only when one of its literal pieces (the longest run of plain characters
 *   outside brackets) occurs in the name, and only while its id is below the
 *   best match found so far; a pattern without such a piece is tried for
 *   every name; a pattern added twice is kept once, with the smaller id.
 *
 * Case folding is ASCII (the program runs in the C locale, where fnmatch's
 * FNM_CASEFOLD folds A-Z only).  Build: tp_globset_add in any order, tp_globset_seal,
 * then tp_globset_first, which does not modify the set (threads may share it). */
#ifndef TP_GLOBSET_H
#define TP_GLOBSET_H

#include "convert/base/common.h"

typedef struct tp_globset tp_globset;

tp_globset *tp_globset_new(bool casefold);
void tp_globset_add(tp_globset *g, const char *pattern, uint32_t id); /* id < UINT32_MAX */
/* After the last add, before the first lookup (links the substring automaton). */
void tp_globset_seal(tp_globset *g);
/* The smallest id of a pattern matching s, or UINT32_MAX.  When fnmatch_calls
 * is not NULL it is increased by the fnmatch calls made (tests bound it). */
uint32_t tp_globset_first(const tp_globset *g, const char *s, uint64_t *fnmatch_calls);
void tp_globset_free(tp_globset *g);
/* The distinct patterns without a literal piece: each is tried on every name
 * (a caller bounds them; a repeated pattern counts once). */
size_t tp_globset_pieceless(const tp_globset *g);

#endif
