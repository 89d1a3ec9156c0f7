/* protect.h: the files no output may replace or remove: every input a
 * command reads (the traces, the files its options name, @lists), by
 * device and inode, so another path, a symbolic link or a hard link to an
 * input is caught too (docs/ERRORS.md "No input is ever overwritten"). */
#ifndef TP_PROTECT_H
#define TP_PROTECT_H

/* Refuse (tp_out_open fails) any later output that is this input file:
 * every input a command reads (tp_input_open registers each; batch and job
 * inputs before their workers fork), since report, diff and batch write
 * fixed names (summary.json, diff.md, index.json, ...) that an input in the
 * output folder may have.  Not a regular file (or missing): nothing. */
void tp_out_protect(const char *input);
/* The protected input that PATH is (same device and inode), or NULL: a
 * command that will write PATH late can refuse before it starts.  The files
 * FILE options named (tp_opt_file, cli.h) are protected by the first call.
 * Hashed: a lookup costs one stat whatever the number of inputs. */
const char *tp_out_protected(const char *path);

#endif
