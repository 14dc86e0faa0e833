/*
 * Where an operation's cycles go: an instrumented build only (the firmware built with -DRSA_PROFILE,
 * as `python -m sim split` does). The default build compiles every hook below to nothing, so its
 * timed code is the same as without this file.
 *
 * The operation's code names its steps (profile_step: the argument checks, the exponentiations,
 * Garner's step, ...); the peripheral's driver marks, inside any step, the cycles it spends moving
 * operand words (PROFILE_TRANSFER) and waiting for a command to end (PROFILE_WAIT). Each step's
 * cycles are split three ways: the CPU's own work, transfers, waits. Stamps come from the CPU's
 * mcycle counter (a cycle to read), and the cycles of the stamps themselves are charged to the part
 * they end, so the three parts add up to the timed region's cycles less a few per stamp.
 */
#ifndef PROFILE_H
#define PROFILE_H

enum profile_part { PROFILE_CPU, PROFILE_TRANSFER, PROFILE_WAIT, PROFILE_PARTS };

/* The steps of an operation, in the order the split lists them. */
#define PROFILE_STEPS(X) \
	X(ARGS, "args") X(EXP, "exp") X(GARNER, "garner") X(RECOMBINE, "recombine") X(CHECK, "check") \
	X(RELEASE, "release") X(WIPE, "wipe")
#define PROFILE_STEP_ENUM(id, name) PROFILE_##id,
enum profile_step { PROFILE_STEPS(PROFILE_STEP_ENUM) PROFILE_STEP_COUNT };
#undef PROFILE_STEP_ENUM

#ifdef RSA_PROFILE
void profile_start(void);
void profile_step(enum profile_step step);
void profile_enter(enum profile_part part);
void profile_leave(void);
void profile_stop(void);
/* Prints one line: `profile <step>=<cpu>,<transfer>,<wait> ...` (console_protocol.PROFILE_LINE). */
void profile_print(void);
#else
#define profile_start() ((void)0)
#define profile_step(step) ((void)0)
#define profile_enter(part) ((void)0)
#define profile_leave() ((void)0)
#define profile_stop() ((void)0)
#define profile_print() ((void)0)
#endif

#endif
