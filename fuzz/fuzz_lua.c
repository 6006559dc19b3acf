/* fuzz_lua.c - the Lua API from hostile scripts: any text run in the sandbox (with small
 * step, heap and time limits so a run ends quickly) must finish with a result or a
 * message, never crash the process, hang or leak past the run. A run the limits stop must
 * say which limit. */
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
	/* a fuzz input must end within milliseconds, or the fuzzer spends its time on the
	 * few inputs that run the solvers or fill the heap (hundreds of runs a second) */
	env.lim.steps = 200000;
	env.lim.mem_mib = 16;
	env.lim.time_ms = 20;    /* C work the budget does not count: solvers, evaluations */
	env.out = NULL;          /* discard what it prints */
	int rc = scr_run_string(&env, text, "fuzz.lua", 0, NULL, o);
	if (rc != 0 && !o->err[0])
		abort(); /* an error must carry a message */
	if (o->stopped && !strstr(o->err, o->stopped == SCR_STOP_STEPS ? "--lua-steps" :
			o->stopped == SCR_STOP_MEM ? "--lua-mem" : o->stopped == SCR_STOP_TIME ? "--lua-time" : "cancelled"))
		abort(); /* a limit names itself and the option that raises it */
out:
	free(o);
	free(text);
	return 0;
}
