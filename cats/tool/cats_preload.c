/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_preload.c: the malloc-replacing preload library.
 *
 * vgpreload_cats-amd64-linux.so is Valgrind's own malloc replacement
 * (libreplacemalloc_toolpreload, linked whole); it forwards every
 * allocation function to the tool through client requests. Automake needs
 * at least one source file per program, and this is it. */
typedef int cats_preload_has_no_code;
