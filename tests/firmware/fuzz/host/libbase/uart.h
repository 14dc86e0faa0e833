/* Host stand-in for LiteX's libbase/uart.h. */
#ifndef HOST_LIBBASE_UART_H
#define HOST_LIBBASE_UART_H

void uart_init(void);

#endif
