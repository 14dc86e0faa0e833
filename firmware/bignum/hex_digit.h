/* The value of one hex digit, for the console's parsers: bn_from_hex (bignum/plain.c) and the
   signature commands' byte strings (sig_cmds.c). A static function in each file that includes it,
   defined where it was before, so the code GCC makes for bignum.c (and with it the timed code's
   addresses, linker.ld) stays the same. */
#ifndef HEX_DIGIT_H
#define HEX_DIGIT_H

/* 0..15 for a hex digit (either case), -1 for anything else. */
static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

#endif
