/* prefs.c - the explorer's config file (prefs.h). */
#include "tui/prefs.h"
#include "tui/app.h"
#include "io/atomic.h"
#include "io/text.h"
#include "io/ydoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* $XDG_CONFIG_HOME/strata (or ~/.config/strata) into out; 0 or -1. */
static int config_dir(char *out, size_t n)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	size_t w;
	if (x && x[0] == '/') /* the XDG spec: a relative path is ignored */
		w = (size_t)snprintf(out, n, "%s/strata", x);
	else if (home && home[0])
		w = (size_t)snprintf(out, n, "%s/.config/strata", home);
	else
		return -1;
	return w >= n ? -1 : 0;
}

int tui_prefs_path(char *out, size_t n)
{
	char dir[1024];
	if (config_dir(dir, sizeof dir))
		return -1;
	return (size_t)snprintf(out, n, "%s/config.yaml", dir) >= n ? -1 : 0;
}

int tui_prefs_load(tui_prefs *p, char *warn, size_t n)
{
	memset(p, 0, sizeof *p);
	warn[0] = 0;
	char path[1100], err[512];
	struct stat st;
	if (tui_prefs_path(path, sizeof path) || stat(path, &st))
		return 0; /* no config yet: the defaults */
	yd_doc *d = yd_load_file(path, err, sizeof err);
	if (!d) {
		snprintf(warn, n, "config ignored: %s", err);
		return -1;
	}
	const yd_node *root = yd_root(d);
	int rc = 0;
	if (!root || yd_kind_of(root) != YD_MAP) {
		snprintf(warn, n, "config ignored: %s is not a mapping of key: value", path);
		yd_free(d);
		return -1;
	}
	for (size_t i = 0; i < yd_len(root); i++) {
		const char *k = yd_key(root, i);
		const yd_node *v = yd_val(root, i);
		if (!strcmp(k, "theme") && yd_kind_of(v) == YD_SCALAR) {
			text_copy(p->theme, sizeof p->theme, yd_str(v));
		} else if (!strcmp(k, "zoom")) {
			if (yd_bool(d, v, "zoom", &p->zoom, err, sizeof err)) {
				snprintf(warn, n, "config: %s", err);
				rc = -1;
			}
		} else {
			yd_errat(d, yd_keynode(root, i), err, sizeof err, "unknown key '%s' (known: theme, zoom)", k);
			snprintf(warn, n, "config: %s", err);
			rc = -1;
		}
	}
	yd_free(d);
	return rc;
}

int tui_prefs_save(const tui_prefs *p, char *err, size_t n)
{
	char dir[1024], path[1100], text[512];
	if (config_dir(dir, sizeof dir) || tui_prefs_path(path, sizeof path)) {
		snprintf(err, n, "no config directory (XDG_CONFIG_HOME and HOME are unset)");
		return -1;
	}
	/* ~/.config may not exist yet either */
	char parent[1024];
	snprintf(parent, sizeof parent, "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		mkdir(parent, 0700);
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (strpbrk(p->theme, "\"\\\n")) {
		snprintf(err, n, "theme name '%s' cannot be written in the config", p->theme);
		return -1;
	}
	int len = snprintf(text, sizeof text,
			"# strata explorer preferences (written by strata when they change; see strata(1))\n"
			"theme: \"%s\"\nzoom: %s\n", p->theme, p->zoom ? "true" : "false");
	return atomic_replace(path, text, (size_t)len, err, n);
}

void tui_prefs_remember(tui_app *a)
{
	if (!a->remember)
		return; /* a headless replay never writes the user's config */
	tui_prefs p;
	memset(&p, 0, sizeof p);
	if (a->theme_idx >= 0 && a->theme_idx < a->ntheme)
		text_copy(p.theme, sizeof p.theme, a->theme_name[a->theme_idx]);
	else
		snprintf(p.theme, sizeof p.theme, "builtin");
	p.zoom = a->zoom;
	char err[512];
	if (tui_prefs_save(&p, err, sizeof err))
		tui_app_msg(a, MSG_ERROR, "preferences not saved: %s", err);
}
