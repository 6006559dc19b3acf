/* fuzz_lua.c - the Lua API from hostile scripts: any text run in the sandbox (with small
 * step and heap limits so a run ends quickly) must finish with a result or a message,
 * never crash the process or leak past the run. */
#include "fuzz.h"
#include "script/script.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static paths_t paths;
	static int ready;
	if (!ready) {
		paths_init(&paths, "strata");
		ready = 1;
	}
	char *text = malloc(size + 1);
	scr_outcome *o = malloc(sizeof *o);
	if (!text || !o)
		goto out;
	memcpy(text, data, size);
	text[size] = 0;
	scr_env env;
	memset(&env, 0, sizeof env);
	env.paths = &paths;
	env.lim.steps = 200000;  /* a fuzz input must end within milliseconds */
	env.lim.mem_mib = 32;
	env.out = NULL;          /* discard what it prints */
	int rc = scr_run_string(&env, text, "fuzz.lua", 0, NULL, o);
	if (rc != 0 && !o->err[0])
		abort(); /* an error must carry a message */
out:
	free(o);
	free(text);
	return 0;
}
