/* text.c - UTF-8 aware copies and the terminal-safe form of input strings. */
#include "io/text.h"

#include <string.h>

size_t text_utf8_next(const char *str, int *valid)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t need;

	*valid = 1;
	if (c < 0x80)
		return 1;
	/* the second-byte ranges exclude overlong forms, UTF-16 surrogates and code points
	 * above U+10FFFF (Unicode table 3-7) */
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*valid = 0;
		return 1;
	}
	for (size_t k = 1; k <= need; k++) {
		if (s[k] < lo || s[k] > hi) { /* also stops at the terminating NUL */
			*valid = 0;
			return k;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

size_t text_copy(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src), o = 0;

	if (n == 0)
		return len;
	while (o < len) {
		int valid;
		size_t k = text_utf8_next(src + o, &valid);
		if (o + k > n - 1)
			break;
		o += k;
	}
	memmove(dst, src, o);
	dst[o] = '\0';
	return len;
}

char *text_safe(char *dst, size_t n, const char *src)
{
	size_t i = 0, o = 0;

	if (n == 0)
		return dst;
	while (src[i] != '\0') {
		unsigned char c = (unsigned char)src[i];
		int valid;
		size_t k = text_utf8_next(src + i, &valid);
		/* C0 and DEL; C1 is U+0080-U+009F, encoded C2 80 to C2 9F */
		int control = c < 0x20 || c == 0x7F || (k == 2 && c == 0xC2 && (unsigned char)src[i + 1] < 0xA0);
		if (!valid || control) {
			if (o + 1 > n - 1)
				break;
			dst[o++] = '?';
			i += k;
			continue;
		}
		if (o + k > n - 1)
			break;
		memmove(dst + o, src + i, k); /* o <= i: in place is safe */
		o += k;
		i += k;
	}
	dst[o] = '\0';
	return dst;
}
