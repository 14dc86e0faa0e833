/* Host stand-in for LiteX's libbase/console.h: the fuzz target (console_fuzz.c) types the input and
   takes the output. */
#ifndef HOST_LIBBASE_CONSOLE_H
#define HOST_LIBBASE_CONSOLE_H

char readchar(void);
void putsnonl(const char *s);

#endif
