/*
 * The UART as a raw byte stream for one TLS connection, taken from the console (libbase's uart.c and its
 * line editing) for the connection's length. Received bytes go into a ring of our own, filled by our
 * interrupt handler (attached for the connection, libbase's given back after): a client's flight that
 * arrives while the server computes (a board's UART receives at its baud rate whatever the CPU does,
 * and its FIFO holds 16 bytes) waits there. Sending is polled. On a CPU without interrupts (SERV) the
 * FIFO is polled instead.
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
