/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stackvars.h: stack arrays of an ELF object, from its DWARF.
 *
 * The Valgrind tool names accesses to stack arrays without Valgrind's own
 * var-info reader (seconds and tens of MB per run once libc's debug info
 * is installed): it asks the helper (STACKVARS_QUERY) for the arrays of
 * each object it loads. An array is reported when every activation of its
 * function keeps it at one fixed offset from the CFA:
 *   - a DW_TAG_variable (in the function's body, a nested lexical block
 *     or an inlined call) whose DW_AT_location is the single operation
 *     DW_OP_fbreg(N), in a DW_TAG_subprogram with DW_AT_low_pc whose
 *     DW_AT_frame_base is DW_OP_call_frame_cfa (gcc, g++ and gfortran on
 *     x86-64 at every -O level): the array lives at CFA + N;
 *   - whose type, through typedef/const/volatile/restrict/atomic, is a
 *     DW_TAG_array_type of constant bounds (no VLAs, no Fortran
 *     descriptors, no strides) and non-zero total size.
 * Not reported: parameters, statics (DW_OP_addr), variables with location
 * lists, and DW_OP_breg6 (rbp) locations: gcc uses rbp- or rsp-relative
 * locations only for realigned or dynamic frames, where the distance to
 * the CFA varies between activations, and proving otherwise would need the
 * object's CFI. Also left out: functions given only by DW_AT_ranges
 * (gcc's hot/cold split), and types reached through dwz's alternate file
 * (DW_FORM_GNU_ref_alt) or type units (DW_FORM_ref_sig8). DWARF 2 to 5.
 * An object without .debug_info is looked up in
 * DEBUG_DIR/.build-id/xx/rest.debug by its NT_GNU_BUILD_ID note. */
#ifndef CATS_BINARY_STACKVARS_H
#define CATS_BINARY_STACKVARS_H

#include <stddef.h>
#include <stdint.h>

#define STACKVARS_ERRLEN 256
#define STACKVARS_DEBUG_DIR "/usr/lib/debug"

/* Every status leaves a valid (possibly empty) result: callers that only
 * want "the arrays, if any" may ignore it. */
typedef enum stackvars_status {
   STACKVARS_OK = 0,
   STACKVARS_EOPEN,     /* the file cannot be opened */
   STACKVARS_ENOTELF,   /* not an ELF object, or not x86-64 */
   STACKVARS_ENOTEXT,   /* no .text section to compute the bias from */
   STACKVARS_ENODEBUG,  /* no DWARF, neither inside nor by build-id */
   STACKVARS_EDWARF,    /* libdwarf could not open the debug info */
   STACKVARS_ENOMEM     /* out of memory */
} stackvars_status;

typedef struct stackvars_var {
   uint64_t fn_entry;     /* function's DW_AT_low_pc (+ bias) */
   int64_t cfa_offset;    /* the array starts at CFA + cfa_offset (< 0) */
   uint64_t size;         /* bytes */
   char *name;            /* variable name */
   char *fn_name;         /* function's DW_AT_name, or NULL */
} stackvars_var;

/* Flags for stackvars_find. */
#define STACKVARS_NO_BIAS 1u    /* report ELF addresses (ignore text_avma) */
#define STACKVARS_OWN_DWARF 2u  /* only the object's own DWARF: no build-id
                             lookup of a separate debug file */

/* Find the stack arrays of the object at `path`, with entry addresses
 * shifted by bias = text_avma - (.text sh_addr) unless STACKVARS_NO_BIAS.
 * debug_dir is where separate debug files live (NULL: STACKVARS_DEBUG_DIR).
 * *out (free with stackvars_free) holds *n arrays sorted by fn_entry, then
 * cfa_offset, then size and name; exact duplicates are dropped. */
stackvars_status stackvars_find(const char *path, uint64_t text_avma, unsigned flags,
                                const char *debug_dir, stackvars_var **out, size_t *n,
                                char *err, size_t errlen);

void stackvars_free(stackvars_var *v, size_t n);

#endif /* CATS_BINARY_STACKVARS_H */
