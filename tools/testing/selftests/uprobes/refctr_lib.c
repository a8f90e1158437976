// SPDX-License-Identifier: GPL-2.0
/*
 * A shared object for uprobe_refctr: a probe site and its SDT semaphore,
 * whose pages a process maps only when it dlopen()s this file, i.e. after
 * the probe was registered.
 */
#include "uprobe_util.h"

/* In a data section of its own, as sdt.h does: file-backed, never in .bss. */
__section(".probes") __used __attribute__((visibility("default")))
unsigned short refctr_lib_sema;

__attribute__((noipa, visibility("default"))) __used
int refctr_lib_func(int x)
{
	return x * 3 + 1;
}

__attribute__((visibility("default"))) __used
unsigned short refctr_lib_sema_value(void)
{
	return READ_FRESH(refctr_lib_sema);
}
