/* tasks.c - starting, watching, cancelling and collecting the one background job. */
#include "tui/tasks.h"

#include <stdio.h>
#include <stdlib.h>

void *tui_task_alloc(tui_app *a, size_t size, size_t plan_off)
{
	char *d = calloc(1, size);
	if (!d) {
		tui_app_msg(a, MSG_ERROR, "out of memory");
		return NULL;
	}
	plan_t *p = (plan_t *)(d + plan_off);
	*p = *a->plan;
	p->strategy.nchunks = 0;
	p->strategy.nranges = 0;
	return d;
}

int tui_task_start(tui_app *a, const tui_task_ops *ops, void *data)
{
	if (a->task) {
		tui_app_msg(a, MSG_ERROR, "busy: the %s is running (Esc cancels it)", a->task->name);
		ops->drop(data);
		return -1;
	}
	if (tui_job_start(a->job, ops->work, data, a->job_delay_ms)) {
		tui_app_msg(a, MSG_ERROR, "cannot start the %s: no thread available", ops->name);
		ops->drop(data);
		return -1;
	}
	a->task = ops;
	a->task_data = data;
	a->msg_kind = MSG_NONE; /* the progress line takes over the message line */
	return 0;
}

int tui_task_busy(const tui_app *a)
{
	return a->task != NULL;
}

int tui_task_poll(tui_app *a)
{
	if (!a->task)
		return 0;
	if (!tui_job_finished(a->job) || a->mode != MODE_NORMAL)
		return 1; /* progress to redraw; or the result waits until the overlay closes */
	tui_job_wait(a->job); /* returns at once: the worker is done; its writes are ours now */
	const tui_task_ops *ops = a->task;
	void *data = a->task_data;
	a->task = NULL;
	a->task_data = NULL;
	ops->finish(a, data);
	return 1;
}

void tui_task_cancel(tui_app *a)
{
	if (!a->task)
		return;
	tui_job_cancel(a->job);
}

void tui_task_stop(tui_app *a)
{
	if (!a->task || !a->job)
		return;
	tui_job_cancel(a->job);
	tui_job_wait(a->job);
	a->task->drop(a->task_data);
	a->task = NULL;
	a->task_data = NULL;
}

void tui_task_status(tui_app *a, char *out, size_t n)
{
	if (!a->task) {
		out[0] = 0;
		return;
	}
	tui_job_progress p;
	tui_job_progress_get(a->job, &p);
	if (tui_job_cancelled(a->job)) {
		snprintf(out, n, "cancelling the %s %s %.1f s", a->task->name, a->g->dot, p.elapsed_ms / 1e3);
		return;
	}
	a->task->status(a->task_data, &p, a->g->dot, out, n);
}

void tui_tasks_release(tui_app *a)
{
	tui_task_stop(a);
	if (a->review) {
		ilp_free(&a->review->r);
		free(a->review);
		a->review = NULL;
	}
	if (a->cands) {
		search_free(&a->cands->r);
		free(a->cands);
		a->cands = NULL;
	}
	free(a->text);
	a->text = NULL;
}
