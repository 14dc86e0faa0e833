/* Host stand-in for LiteX's libbase/uart.h. */
#ifndef HOST_LIBBASE_UART_H
#define HOST_LIBBASE_UART_H

void uart_init(void);
void uart_sync(void);
int uart_read_nonblock(void);

#endif
