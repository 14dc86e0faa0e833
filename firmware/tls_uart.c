#include <generated/csr.h>
#include <irq.h>
#include <libbase/uart.h>

#include "console_protocol.h"
#include "cycles.h"
#include "tls_uart.h"

static const unsigned char token[] = TLS_RESUME_TOKEN;
_Static_assert(sizeof(token) == TLS_UART_TOKEN_BYTES, "tls_uart.h's token length");
static unsigned token_matched;
static unsigned saved_ie;
static uint32_t received;

/* One more byte of the stream against the token; 1 when it completes it. token[0] occurs nowhere
   else in the token, so after a mismatch a match can only restart at this byte. */
static int token_step(unsigned char c)
{
	if (c == token[token_matched])
		token_matched++;
	else
		token_matched = c == token[0];
	if (token_matched == sizeof(token)) {
		token_matched = 0;
		return 1;
	}
	return 0;
}

static int rx_ready(void)
{
	return !uart_rxempty_read();
}

static unsigned char rx_take(void)
{
	unsigned char c = (unsigned char)uart_rxtx_read();
	uart_ev_pending_write(UART_EV_RX);      /* pops the FIFO */
	received++;
	return c;
}

void tls_uart_begin(void)
{
	uart_sync();            /* the console's queued output leaves first */
#ifdef CONFIG_CPU_HAS_INTERRUPT
	saved_ie = irq_getie();
	irq_setie(0);
#endif
	while (uart_read_nonblock())            /* typed before the connection: not part of it */
		(void)uart_read();
	token_matched = 0;
	received = 0;
}

uint32_t tls_uart_received(void)
{
	return received;
}

void tls_uart_end(void)
{
	/* The receive interrupt is raised when the FIFO turns non-empty (LiteX's UART: a rising edge).
	   Left non-empty here it would never rise again and the console would wait for ever, so what is
	   left (a second token, the rest of a client's last record: bytes after the connection) is
	   dropped; the next byte to arrive raises it. */
	while (rx_ready())
		(void)rx_take();
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setie(saved_ie);
#endif
}

int tls_uart_read(unsigned char *buf, size_t len, uint64_t idle)
{
	uint64_t deadline = cycles_now() + idle;
	size_t n = 0;

	while (n < len) {
		if (!rx_ready()) {
			if (cycles_now() > deadline)
				return TLS_UART_TIMEOUT;
			continue;
		}
		buf[n] = rx_take();
		if (token_step(buf[n]))
			return TLS_UART_TOKEN;
		n++;
		deadline = cycles_now() + idle;
	}
	return (int)n;
}

void tls_uart_write(const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--) {
		while (uart_txfull_read())
			;
		uart_rxtx_write(*p++);
	}
}

int tls_uart_wait_token(uint64_t deadline)
{
	for (;;) {
		if (rx_ready()) {
			if (token_step(rx_take()))
				return 1;
		} else if (cycles_now() > deadline) {
			return 0;
		}
	}
}
