/* prefs.h - the explorer's remembered preferences: $XDG_CONFIG_HOME/strata/config.yaml
 * (~/.config/strata/config.yaml when XDG_CONFIG_HOME is unset), written atomically when a
 * preference changes; a file that does not load gives a warning, never a failed start. */
#ifndef STRATA_TUI_PREFS_H
#define STRATA_TUI_PREFS_H

#include <stddef.h>

struct tui_app;

typedef struct {
	char theme[64];   /* "" when none was saved */
	int zoom;         /* timeline: the whole step */
} tui_prefs;

/* The config file's path; 0, or -1 when neither XDG_CONFIG_HOME nor HOME is set. */
int tui_prefs_path(char *out, size_t n);
/* Read the preferences (defaults when the file is missing): 0, or -1 with a warning in
 * warn (the file is malformed or names an unknown key; what could be read is kept). */
int tui_prefs_load(tui_prefs *p, char *warn, size_t n);
/* Write them atomically, the directory created; 0, or -1 with the reason in err. */
int tui_prefs_save(const tui_prefs *p, char *err, size_t n);
/* Save the session's theme and zoom (when a->remember: real sessions only); a failure goes
 * to the message line. */
void tui_prefs_remember(struct tui_app *a);

#endif
