#include <generated/csr.h>
#include <irq.h>
#include <libbase/uart.h>

#include "console_protocol.h"
#include "drivers/cycles.h"
#include "tls/tls_uart.h"

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

#ifdef CONFIG_CPU_HAS_INTERRUPT

/* What the UART received, filled by rx_isr: the client's bytes wait here while the CPU computes (a
   board's UART receives at its baud rate whatever the CPU does). A power of two. */
#define RING_BYTES 1024
static volatile unsigned char ring[RING_BYTES];
static volatile unsigned ring_head;     /* written by rx_isr */
static unsigned ring_tail;
static unsigned saved_events;

/* Empties the UART's receive FIFO into the ring (a full ring drops: the connection then fails, it does
   not hang). The event is raised when the FIFO turns non-empty, so the handler always empties it. */
static void rx_isr(void)
{
	if (uart_ev_pending_read() & UART_EV_TX)
		uart_ev_pending_write(UART_EV_TX);
	while (!uart_rxempty_read()) {
		unsigned char c = (unsigned char)uart_rxtx_read();
		unsigned next = (ring_head + 1) & (RING_BYTES - 1);
		uart_ev_pending_write(UART_EV_RX);      /* pops the FIFO */
		if (next != ring_tail) {
			ring[ring_head] = c;
			ring_head = next;
		}
	}
}

static int rx_ready(void)
{
	return ring_head != ring_tail;
}

static unsigned char rx_take(void)
{
	unsigned char c = ring[ring_tail];
	ring_tail = (ring_tail + 1) & (RING_BYTES - 1);
	received++;
	return c;
}

#else

/* A CPU without interrupts (SERV): the UART's FIFO alone, polled. */
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

#endif

/* Drops what the UART's FIFO holds (interrupts off). */
static void fifo_drop(void)
{
	while (!uart_rxempty_read()) {
		(void)uart_rxtx_read();
		uart_ev_pending_write(UART_EV_RX);
	}
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
	fifo_drop();
	token_matched = 0;
	received = 0;
#ifdef CONFIG_CPU_HAS_INTERRUPT
	/* receive into the ring; transmit is polled (tls_uart_write), its event off */
	ring_head = ring_tail = 0;
	saved_events = uart_ev_enable_read();
	uart_ev_enable_write(UART_EV_RX);
	irq_attach(UART_INTERRUPT, rx_isr);
	irq_setie(1);
#endif
}

uint32_t tls_uart_received(void)
{
	return received;
}

void tls_uart_end(void)
{
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setie(0);
#endif
	/* What is left (a second token, the rest of a client's last record: bytes after the connection)
	   is dropped. Left in the FIFO, it would keep the console's receive interrupt from rising again
	   (LiteX's UART raises it when the FIFO turns non-empty): the console would wait for ever. */
	fifo_drop();
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_attach(UART_INTERRUPT, uart_isr);
	uart_ev_enable_write(saved_events);
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
