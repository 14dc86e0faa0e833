/*
 * Where a TLS connection's cycles go. The meter charges every cycle to exactly one part: the one the
 * CPU is in. A part is entered where the server's work passes through a hook or vtable we hand to
 * BearSSL (tls_server.c): the RSA hooks (rsa), the elliptic-curve implementation (ecdhe), the SHA-256
 * vtable of the handshake hash, HMAC-DRBG and the signature's hash (hash), the TLS 1.2 PRF (prf), the
 * AES-GCM record classes, their key set-up included (record), the UART (io_wait); everything else
 * (BearSSL's handshake code and record layer, copies, our loop) is `other`. A part entered inside
 * another one counts as itself until it leaves (a hash inside the PRF would be hash), so the parts
 * always add up to the cycles since tls_meter_start().
 *
 * The counter is the SoC's (cycles.h), read at every switch: about 20 cycles each, a few hundred
 * switches a handshake. Nothing here masks interrupts: the server polls the UART with them off.
 */
#ifndef TLS_METER_H
#define TLS_METER_H

#include <stdint.h>

/* The order of console_protocol.TLS_PARTS, then the UART wait. */
enum tls_part { TLS_RSA, TLS_ECDHE, TLS_HASH, TLS_PRF, TLS_RECORD, TLS_OTHER, TLS_IO_WAIT, TLS_PART_COUNT };

struct tls_meter { uint64_t cycles[TLS_PART_COUNT]; };

/* Zeroes the parts; from now on the CPU is in `other`. */
void tls_meter_start(void);
/* Charges the cycles since the last switch to the current part, which becomes `part`; returns the
   part it was (for tls_meter_leave). */
enum tls_part tls_meter_enter(enum tls_part part);
/* Charges the cycles since the last switch to the current part and goes back to `previous`. */
void tls_meter_leave(enum tls_part previous);
/* The parts so far (the current one charged up to now). */
void tls_meter_read(struct tls_meter *out);
/* The parts' sum without the UART wait. */
uint64_t tls_meter_busy(const struct tls_meter *m);

#endif
