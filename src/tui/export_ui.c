/* export_ui.c - `e` and `:export TARGET [FILE]`: the plan as a Megatron-LM, DeepSpeed or
 * torchtitan launch configuration, written atomically by export_save (the same code as
 * `strata export -o FILE`, so both give the same bytes). */
#include "io/export.h"
#include "tui/actions.h"
#include "tui/safety.h"
#include "tui/tasks.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const ext[EXPORT_COUNT] = {"megatron.sh", "deepspeed.json", "torchtitan.toml"};
static const char *const name[EXPORT_COUNT] = {"megatron", "deepspeed", "torchtitan"};

void tui_export_default_name(const tui_app *a, int target, char *out, size_t n)
{
	/* NAME: the plan file's stem, else the model preset's name, else the model's name */
	char stem[256];
	const char *src = a->save_path[0] ? a->save_path : a->plan->model_ref;
	if (!src[0] || src[0] == '(')
		src = a->plan->model.name;
	const char *slash = strrchr(src, '/');
	snprintf(stem, sizeof stem, "%.200s", slash ? slash + 1 : src);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = 0;
	for (char *c = stem; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '-';
	snprintf(out, n, "plan-%s.%s", stem[0] ? stem : "strata", ext[target]);
}

void tui_export_to(tui_app *a, int target, const char *path, int force, int overwrite)
{
	if (!a->cur_valid) {
		tui_app_msg(a, MSG_ERROR, "not exported: the strategy is invalid: %s", a->cur_why);
		return;
	}
	fw_issues is;
	int nis = export_check((export_target)target, a->plan, &is);
	if (nis && !force) {
		/* what would be launched is not what was priced: say why, offer the nearest */
		tui_app_msg(a, MSG_ERROR, "not exported (:export! %s writes the nearest it runs): %s%s", name[target],
				is.text[0], nis > 1 ? ", and more" : "");
		return;
	}
	char file[1024], err[1024];
	if (path && path[0])
		snprintf(file, sizeof file, "%s", path);
	else
		tui_export_default_name(a, target, file, sizeof file);
	/* an existing file is replaced after one y/n question (or :export!) */
	if (!overwrite && !force && strcmp(file, a->export_ok) && tui_confirm_needed(file)) {
		tui_confirm_ask(a, CONFIRM_EXPORT, file, target, force);
		return;
	}
	if (export_save(file, (export_target)target, a->plan, err, sizeof err)) {
		tui_app_msg(a, MSG_ERROR, "not exported: %s", err);
		return;
	}
	snprintf(a->export_ok, sizeof a->export_ok, "%s", file);
	if (a->res->fits)
		tui_app_msg(a, MSG_INFO, "exported %s for %s", file, name[target]);
	else
		tui_app_msg(a, MSG_ERROR, "exported %s for %s, but the plan does not fit its memory budget", file,
				name[target]);
}

void tui_export_begin(tui_app *a)
{
	tui_prompt_open(a, PROMPT_TARGET, "export for (m)egatron, (d)eepspeed or (t)orchtitan? ", "");
}

void tui_export_choose(tui_app *a, int key)
{
	int t = key == 'm' ? EXPORT_MEGATRON : key == 'd' ? EXPORT_DEEPSPEED : key == 't' ? EXPORT_TORCHTITAN : -1;
	if (t < 0)
		return; /* only m, d, t (and Esc, handled by the prompt) */
	a->export_target = t;
	char label[64], file[1024];
	snprintf(label, sizeof label, "export %s to: ", name[t]);
	tui_export_default_name(a, t, file, sizeof file);
	tui_prompt_open(a, PROMPT_EXPORT, label, file);
}

void tui_export_command(tui_app *a, const char *args, int force)
{
	char buf[1100];
	snprintf(buf, sizeof buf, "%s", args);
	char *save = NULL, *tgt = strtok_r(buf, " \t", &save), *file = strtok_r(NULL, " \t", &save);
	if (!tgt) {
		tui_app_msg(a, MSG_ERROR, ":export needs a target: %s", export_target_list());
		return;
	}
	int t = export_parse_target(tgt);
	for (int i = 0; t < 0 && i < EXPORT_COUNT; i++)
		if (!strncmp(name[i], tgt, strlen(tgt)))
			t = i; /* a prefix: :export m, :export deep */
	if (t < 0) {
		tui_app_msg(a, MSG_ERROR, "unknown export target '%s' (valid: %s)", tgt, export_target_list());
		return;
	}
	tui_export_to(a, t, file, force, 0);
}
