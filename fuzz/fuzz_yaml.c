/* fuzz_yaml.c - the YAML/JSON loader (libyaml tree with positions): any bytes must give a
 * document or a file:line:col message, within the size and depth limits, and the typed
 * readers must cope with whatever scalar they meet. */
#include "fuzz.h"
#include "io/ydoc.h"

#include <stdio.h>

static void walk(const yd_doc *d, const yd_node *n, int depth)
{
	char err[256];
	long long v;
	double x;
	int b;
	if (!n || depth > 80)
		return;
	switch (yd_kind_of(n)) {
	case YD_MAP:
		for (size_t i = 0; i < yd_len(n); i++) {
			(void)yd_key(n, i);
			(void)yd_line(yd_keynode(n, i));
			walk(d, yd_val(n, i), depth + 1);
		}
		break;
	case YD_SEQ:
		for (size_t i = 0; i < yd_len(n); i++)
			walk(d, yd_item(n, i), depth + 1);
		break;
	default:
		(void)yd_str(n);
		(void)yd_long(d, n, "v", -1000000, 1000000, &v, err, sizeof err);
		(void)yd_double(d, n, "x", -1e300, 1e300, &x, err, sizeof err);
		(void)yd_bool(d, n, "b", &b, err, sizeof err);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	yd_doc *d = yd_load_string((const char *)data, size, "fuzz.yaml", err, sizeof err);
	if (d) {
		walk(d, yd_root(d), 0);
		yd_free(d);
	}
	return 0;
}
