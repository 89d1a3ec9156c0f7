/* demangle.h: Itanium C++ names (_Z..., as nvcc and hipcc name kernels)
 * made readable for labels.  Only displayed text is demangled: converted
 * traces keep the names as they were recorded.
 *
 * The demangler is the C++ runtime's __cxa_demangle (libstdc++, present
 * wherever gcc is; the same code as libiberty's cplus_demangle, without a
 * second package). */
#ifndef TP_DEMANGLE_H
#define TP_DEMANGLE_H

/* The demangled text of name (malloc'ed) when name is a mangled name
 * ("_Z...", or "__Z..." with the extra leading underscore of Mach-O
 * symbols) the demangler accepts; NULL otherwise (the caller keeps name). */
char *tp_demangle(const char *name);

#endif
