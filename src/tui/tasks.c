/* tasks.c - starting, watching, cancelling and collecting the one background job; a
 * job that does not stop when asked is abandoned, never waited for. */
#include "tui/tasks.h"
#include "tui/frames.h"

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
	if (tui_job_start(a->job, ops->work, data, ops->drop, a->job_delay_ms)) {
		if (tui_job_abandoned_live() >= TUI_JOB_MAX_ABANDONED)
			tui_app_msg(a, MSG_ERROR, "cannot start the %s: %d cancelled jobs have not stopped yet", ops->name,
					tui_job_abandoned_live());
		else
			tui_app_msg(a, MSG_ERROR, "cannot start the %s: no thread available", ops->name);
		ops->drop(data);
		return -1;
	}
	a->task = ops;
	a->task_data = data;
	a->task_cancel_us = 0;
	a->msg_kind = MSG_NONE; /* the progress line takes over the message line */
	return 0;
}

int tui_task_busy(const tui_app *a)
{
	return a->task != NULL;
}

/* The app forgets its job (already joined or abandoned). */
static void forget(tui_app *a)
{
	a->task = NULL;
	a->task_data = NULL;
	a->task_cancel_us = 0;
}

/* Esc was pressed TUI_CANCEL_GRACE_MS ago and the worker still runs: let go of it. */
static void abandon(tui_app *a)
{
	const tui_task_ops *ops = a->task;
	void *data = a->task_data;
	forget(a);
	if (tui_job_abandon(a->job) == 0)
		ops->drop(data); /* it returned at the last moment: joined, its data is ours */
	tui_app_msg(a, MSG_INFO, "%s cancelled (it did not stop within %d ms and was abandoned)", ops->name,
			TUI_CANCEL_GRACE_MS);
}

int tui_task_poll(tui_app *a)
{
	if (!a->task)
		return 0;
	if (!tui_job_finished(a->job)) {
		if (a->task_cancel_us > 0 && tui_now_us() - a->task_cancel_us >= TUI_CANCEL_GRACE_MS * 1e3) {
			abandon(a);
			return 1;
		}
		return 0;
	}
	if (a->mode != MODE_NORMAL)
		return 0; /* the result waits until the overlay closes */
	tui_job_wait(a->job, 0); /* joins at once: the worker is done; its writes are ours now */
	const tui_task_ops *ops = a->task;
	void *data = a->task_data;
	forget(a);
	ops->finish(a, data);
	return 1;
}

void tui_task_cancel(tui_app *a)
{
	if (!a->task)
		return;
	tui_job_cancel(a->job);
	if (a->task_cancel_us == 0)
		a->task_cancel_us = tui_now_us();
}

void tui_task_stop(tui_app *a)
{
	if (!a->task || !a->job)
		return;
	const tui_task_ops *ops = a->task;
	void *data = a->task_data;
	forget(a);
	if (tui_job_stop(a->job, TUI_JOB_STOP_MS) == 0)
		ops->drop(data); /* joined: ours to free; else the abandoned worker frees it */
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
		free(a->cands->ord);
		free(a->cands->more);
		free(a->cands->before);
		free(a->cands);
		a->cands = NULL;
	}
	if (a->shown == a->text)
		a->shown = NULL;
	free(a->text);
	a->text = NULL;
}
