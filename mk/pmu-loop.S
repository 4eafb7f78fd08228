/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's test program on the emulated Haswell (mk/pmu-tests.sh):
 * static, no libc, so that perf counts only these instructions in user
 * mode. 1,000,000 iterations of a load, a decrement and a conditional
 * branch, then exit(0):
 *   instructions 3 * 1000000 + 4, branches 1000000 + 1 (the jnz, and the
 *   syscall: a branch in the model), loads 1000000.
 * Built with -DXCHG (/pmu-xchg), an XCHG with memory instead of the load:
 * atomic, its lock implicit, one load and one store per iteration. Built
 * with -DCMPXCHG8B or -DCMPXCHG16B (/pmu-cmpxchg8b, /pmu-cmpxchg16b), a
 * CMPXCHG8B or CMPXCHG16B of the same memory instead, without LOCK: one
 * load and one store per iteration too (the SDM: the destination gets a
 * write whatever the comparison). Built with -DMOVDQA (/pmu-movdqa), a
 * 16-byte MOVDQA load of it instead: one load. Built
 * with -DITERS=10000000 (/pmu-mid), 10 times as many iterations, for the
 * frequency-mode PEBS tests and figures (mk/pebs-tests.sh,
 * mk/pebs-figures.sh); with -DITERS=100000000 (/pmu-long), 100 times as
 * many, for the cost of the emulated PMU (mk/cost.sh); with
 * -DITERS=1000000000 (/pmu-mig), 1000 times as many, for the migration
 * boot (mk/migrate-tests.sh). Built with -DSWITCH
 * (/pmu-switch), the loop, a write of "1" to
 * /sys/devices/cpu/ht_bug_workaround, the loop again, then exit(0), or
 * exit(1) if the write fails: twice the loads, the write's in the kernel.
 * Built with -DSLEEP -DITERS=50 (/pmu-sleep, mk/pebs-tests.sh), 50
 * nanosleeps of 20 ms, each the sixth user instruction after the start
 * or after the one before, then exit(0): 6 * 50 + 5 instructions. (Of
 * 1 ms until 2026-12-02, when 3 to 7 of 50 returned without sleeping
 * in every run on the emulated Skylake: do_nanosleep() does not
 * schedule once the timer has woken its task, so a vCPU that the host
 * took away between arming the timer and schedule() returns without
 * leaving the CPU; nothing stops the event, and the next instruction
 * writes the record, which moves every later overflow.
 * mk/pmu-sleep-model.py gives the samples for any set of nanosleeps
 * that do not sleep.)
 * Built with -DNAP -DITERS=50 (/pmu-nap, mk/pebs-figures-tests.sh), 50
 * rounds of the loop of 100,000 iterations followed by a nanosleep of
 * 20 ms, then exit(0): a task that runs a few milliseconds at a time and
 * mostly sleeps.
 * Built with -DXMM (/pmu-xmm, mk/pebs-tests.sh), a copy of the loop
 * counter to XMM0 instead of the load: as many instructions, no load
 * (the copy is a byte longer: offset() of mk/pmu-loop.sh does not apply).
 * Built with -DFAULT (/pmu-fault, mk/pmu-tests.sh), an mmap() of 1,000
 * pages without MAP_POPULATE, then 1,000 iterations of a load, a store
 * to the stack, a store to the next of those pages (a page fault, after
 * the other two, in the iteration's TB), an addition, a decrement and a
 * conditional branch, then two NOPs and a UD2 (#UD: SIGILL ends the
 * program):
 *   instructions 9 + 6 * 1000 + 2, branches 1000 + 1 (the syscall),
 *   loads 1000, stores 2000, page faults at least 1000.
 * Built with -DFAULT and -DINT3, -DINT1 or -DINTN (/pmu-int3, /pmu-int1,
 * /pmu-intn), an INT3 (SIGTRAP), an INT1 (#DB, SIGTRAP) or an INT 0x10
 * (#GP: the gate's DPL is 0; SIGSEGV) instead of the UD2; with -DFAULT
 * -DINTO (/pmu-into), instead of the NOPs and the UD2, a far jump to the
 * 32-bit user code segment (USER32_CS, 0x23, which a 64-bit kernel has
 * without IA32_EMULATION too), an addition that sets OF and an INTO
 * (#OF, SIGSEGV): mk/pmu-tests.sh.
 * Built with -DPARK (/pmu-park, mk/pmu-tests.sh), no loop: an mmap() of
 * 16 MiB with MAP_POPULATE, its 12th instruction, timed by RDTSC before
 * and after; the TSC cycles it took go to standard output as 8 bytes,
 * then exit(0).
 */
#ifndef ITERS
#define ITERS 1000000
#endif
	.globl	_start
	.text
_start:
#ifdef PARK
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, %r12
	mov	$9, %eax		/* mmap(0, 16 MiB, RW, PRIVATE | ANON | */
	xor	%edi, %edi		/*      POPULATE, -1, 0) */
	mov	$0x1000000, %esi
	mov	$3, %edx
	mov	$0x8022, %r10d
	mov	$-1, %r8
	xor	%r9d, %r9d
	syscall
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	sub	%r12, %rax
	push	%rax
	mov	$1, %eax		/* write(1, &cycles, 8) */
	mov	$1, %edi
	mov	%rsp, %rsi
	mov	$8, %edx
	syscall
	mov	$60, %eax
	xor	%edi, %edi
	syscall
#elif defined(FAULT)
	mov	$9, %eax		/* mmap(0, 1000 pages, RW, */
	xor	%edi, %edi		/*      PRIVATE | ANON, -1, 0) */
	mov	$1000 * 4096, %esi
	mov	$3, %edx
	mov	$0x22, %r10d
	mov	$-1, %r8
	xor	%r9d, %r9d
	syscall
	mov	$1000, %ecx
1:	mov	(%rsp), %rdx
	mov	%ecx, -8(%rsp)
	mov	%ecx, (%rax)
	add	$4096, %rax
	dec	%ecx
	jnz	1b
#ifdef INTO
	ljmp	*farp(%rip)		/* to USER32_CS, where INTO is valid */
	.code32
2:	mov	$0x7f, %al
	add	$1, %al			/* sets OF */
	into
	.code64
	.section .rodata
farp:	.long	2b
	.word	0x23
#else
	nop
	nop
#if defined(INT3)
	int3
#elif defined(INT1)
	.byte	0xf1			/* INT1 (ICEBP) */
#elif defined(INTN)
	int	$0x10
#else
	ud2
#endif
#endif
#elif defined(SLEEP) || defined(NAP)
	nop
	mov	$ITERS, %ebx
#ifdef NAP
1:	mov	$100000, %ecx
2:	mov	(%rsp), %rax
	dec	%ecx
	jnz	2b
	mov	$35, %eax		/* nanosleep(&ms, NULL) */
#else
1:	mov	$35, %eax		/* nanosleep(&ms, NULL) */
#endif
	lea	ms(%rip), %rdi
	xor	%esi, %esi
	syscall
	dec	%ebx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .rodata
	.balign	8
ms:	.quad	0, 20000000
#else
	mov	$ITERS, %ecx
#if defined(XCHG)
1:	xchg	%rax, (%rsp)
#elif defined(CMPXCHG8B)
1:	cmpxchg8b (%rsp)
#elif defined(CMPXCHG16B)
1:	cmpxchg16b (%rsp)		/* the ABI aligns %rsp to 16 here */
#elif defined(MOVDQA)
1:	movdqa	(%rsp), %xmm0
#elif defined(XMM)
1:	movq	%rcx, %xmm0
#else
1:	mov	(%rsp), %rax
#endif
	dec	%ecx
	jnz	1b
#ifdef SWITCH
	mov	$2, %eax		/* open(path, O_WRONLY) */
	lea	path(%rip), %rdi
	mov	$1, %esi
	syscall
	mov	%eax, %edi		/* write(fd, "1", 1) */
	mov	$1, %eax
	lea	one(%rip), %rsi
	mov	$1, %edx
	syscall
	cmp	$1, %rax
	jne	2f
	mov	$ITERS, %ecx
3:	mov	(%rsp), %rax
	dec	%ecx
	jnz	3b
#endif
	mov	$60, %eax
	xor	%edi, %edi
	syscall
#ifdef SWITCH
2:	mov	$60, %eax
	mov	$1, %edi
	syscall
	.section .rodata
path:	.asciz	"/sys/devices/cpu/ht_bug_workaround"
one:	.ascii	"1"
#endif
#endif
