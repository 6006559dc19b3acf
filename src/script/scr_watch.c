/* scr_watch.c - the solvers (strata.ilp, strata.search) under the recipe's limits. They
 * are C code that runs for seconds and allocates outside the Lua heap (GLPK's tree, the
 * chunk DP, the search's threads), where neither the count hook nor the counting allocator
 * sees anything. Their public knobs are a time limit and a cancel flag, so: the caller
 * passes what is left of the wall-clock limit as the time limit, and a watchdog thread
 * raises the cancel flag when the run's own cancel flag is set (Esc in the explorer), the
 * deadline passes, or the process heap has grown by more than what is left of --lua-mem
 * (polled every SCR_WATCH_MS; the heap is glibc's in-use bytes, or the sanitizer
 * allocator's under ASan). The solver then stops within a few milliseconds and releases
 * its memory, and the run is stopped with the limit's message. The heap is the process's:
 * what other threads allocate meanwhile counts too (the explorer runs one job at a time,
 * and its own thread allocates little). */
#include "script/scr_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCR_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SCR_ASAN 1
#endif

#ifdef SCR_ASAN
size_t __sanitizer_get_current_allocated_bytes(void); /* sanitizer/allocator_interface.h */
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define SCR_MALLINFO2 1
#endif

#define SCR_WATCH_MS 5

/* Bytes of heap in use by the whole process, or -1 where that cannot be known (then the
 * solvers are bounded by time only). */
static long long scr_heap_bytes(void)
{
#if defined(SCR_ASAN)
	return (long long)__sanitizer_get_current_allocated_bytes();
#elif defined(SCR_MALLINFO2)
	struct mallinfo2 mi = mallinfo2();
	return (long long)(mi.uordblks + mi.hblkhd);
#else
	return -1;
#endif
}

long long scr_left_ms(const scr_ctx *c)
{
	long long ms = (c->deadline_ns - scr_now_ns()) / 1000000;
	return ms > 0 ? ms : 1;
}

/* Which limit says stop now (SCR_TRIP_*), or 0. Called with w->mu held. */
static int scr_watch_look(scr_watch *w)
{
	if (w->cancel && atomic_load(w->cancel))
		return SCR_TRIP_CANCEL;
	if (scr_now_ns() >= w->deadline_ns)
		return SCR_TRIP_TIME;
	if (w->heap0 >= 0) {
		if (scr_heap_bytes() - w->heap0 > w->allow)
			return SCR_TRIP_MEM;
	}
	return 0;
}

static void *scr_watch_main(void *arg)
{
	scr_watch *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->quit) {
		int why = scr_watch_look(w);
		if (why) {
			w->why = why;
			atomic_store(&w->stop, 1);
			break;
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += SCR_WATCH_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

void scr_watch_begin(lua_State *L, scr_watch *w, const char *what)
{
	scr_ctx *c = scr_ctx_of(L);
	if (scr_check(c, scr_now_ns()))
		scr_raise_trip(L);
	memset(w, 0, sizeof *w);
	atomic_init(&w->stop, 0);
	w->what = what;
	w->cancel = c->env->cancel;
	w->deadline_ns = c->deadline_ns;
	w->allow = c->limit > c->used ? (long long)(c->limit - c->used) : 0;
	w->heap0 = scr_heap_bytes();
	pthread_condattr_t ca;
	if (pthread_condattr_init(&ca))
		return;
	int ok = !pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) && !pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (!ok)
		return;
	if (pthread_mutex_init(&w->mu, NULL)) {
		pthread_cond_destroy(&w->cv);
		return;
	}
	if (pthread_create(&w->th, NULL, scr_watch_main, w)) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		return;
	}
	w->running = 1;
}

const atomic_int *scr_watch_flag(scr_watch *w)
{
	return w->running ? &w->stop : w->cancel;
}

int scr_watch_end(lua_State *L, scr_watch *w)
{
	scr_ctx *c = scr_ctx_of(L);
	if (w->running) {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		w->running = 0;
	}
	int was = c->tripped;
	if (w->why)
		scr_trip(c, w->why);
	else
		scr_check(c, scr_now_ns()); /* the solver's time limit ran out, or Esc came late */
	if (c->tripped && !was)
		c->trip_in = w->what;
	return c->tripped;
}
