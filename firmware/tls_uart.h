/*
 * The UART as a raw byte stream for one TLS connection. LiteX's console driver (libbase's uart.c)
 * keeps a 128-byte receive ring filled by its interrupt handler, and that handler spins for ever when
 * the ring is full and the UART's FIFO is not empty: fine for typed lines, not for a client's flight
 * arriving while the server computes. So for the connection the CPU's interrupts are off and these
 * functions move bytes between the UART's FIFOs and BearSSL's buffers themselves; the FIFO holds what
 * arrives meanwhile (the simulated UART stops the host when it is full; a board's UART needs a FIFO
 * deep enough for a client's flight, soc/config.py UART_FIFO_DEPTH).
 *
 * The host ends a connection early, or gives the console back after one, with TLS_RESUME_TOKEN
 * (console_protocol.h): tls_uart_read() watches every byte it receives for it.
 */
#ifndef TLS_UART_H
#define TLS_UART_H

#include <stddef.h>
#include <stdint.h>

#define TLS_UART_TIMEOUT (-1)   /* nothing arrived before the deadline */
#define TLS_UART_TOKEN   (-2)   /* the host's token arrived */

/* Takes the UART from the console: output the console queued is sent first, input it holds dropped. */
void tls_uart_begin(void);
/* Gives it back to the console. */
void tls_uart_end(void);

/* Reads exactly `len` bytes, each within `idle` cycles of the one before (of the call, for the first).
   Returns len, TLS_UART_TIMEOUT or TLS_UART_TOKEN. */
int tls_uart_read(unsigned char *buf, size_t len, uint64_t idle);
void tls_uart_write(const void *data, size_t len);
/* Bytes received since tls_uart_begin(), the token's included. */
uint32_t tls_uart_received(void);
#define TLS_UART_TOKEN_BYTES 16     /* console_protocol.TLS_RESUME_TOKEN */
/* Drops every byte until the token arrives (1) or `deadline` passes (0). */
int tls_uart_wait_token(uint64_t deadline);

#endif
