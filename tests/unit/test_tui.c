/* Unit tests of the explorer through its headless replay (src/tui/replay.c): the same key
 * handler and renderer as a terminal session, curses writing to /dev/null, the final
 * screen read back as text (ASCII glyphs). The tmux tests in tests/cli/tui_*.sh drive the
 * real binary; these cover more keys, faster, and under the sanitizers. */
#include "check.h"
#include "io/paths.h"
#include "io/plan.h"
#include "tui/keys.h"
#include "tui/tui.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCREEN 16384

static paths_t paths;
static char screen[SCREEN], before[SCREEN];

/* Replay a string of keys (each char a key; '\r' is Enter) on the default plan. */
static int play_size(const char *keys, int rows, int cols, char *out)
{
	int k[512], n = 0;
	for (; keys[n] && n < 512; n++)
		k[n] = (unsigned char)keys[n];
	char err[512] = "";
	int rc = tui_replay(&paths, NULL, k, n, rows, cols, TUI_REPLAY_ASCII, NULL, out, SCREEN, err, sizeof err);
	if (rc < 0)
		printf("  replay: %s\n", err);
	return rc;
}

static int play(const char *keys, char *out)
{
	return play_size(keys, 24, 80, out);
}

/* The knob pane part of the row whose label (column 3) is `label`: "  *tp   ...   8". */
static const char *knob_row(const char *scr, const char *label, char *row, size_t n)
{
	size_t ll = strlen(label);
	snprintf(row, n, "(no row %s)", label);
	for (const char *line = scr; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len > 3 + ll && !strncmp(line + 3, label, ll) && line[3 + ll] == ' ') {
			snprintf(row, n, "%.*s", (int)(len < 26 ? len : 26), line);
			break;
		}
		line = end ? end + 1 : line + len;
	}
	return row;
}

/* The screen without its first and last rows (header and message line). */
static void body(const char *scr, char *out, size_t n)
{
	const char *a = strchr(scr, '\n');
	a = a ? a + 1 : scr;
	size_t len = strlen(a);
	if (len > 0 && a[len - 1] == '\n')
		len--;
	while (len > 0 && a[len - 1] != '\n')
		len--;
	snprintf(out, n, "%.*s", (int)len, a);
}

/* The memory bar line of stage 0 (" s0  ..."), for comparing numbers. */
static void stage0(const char *scr, char *out, size_t n)
{
	const char *p = strstr(scr, "| s0  ");
	const char *e = p ? strchr(p, '\n') : NULL;
	snprintf(out, n, "%.*s", p && e ? (int)(e - p) : 0, p ? p : "");
}

/* Play keys; the final screen must contain needle. */
static void shows(const char *keys, const char *needle, const char *name)
{
	play(keys, screen);
	if (!CHECK(strstr(screen, needle) != NULL, name))
		printf("%s", screen);
}

static void test_start(void)
{
	if (play("", screen) < 0)
		return;
	CHECK(strstr(screen, " strata | Llama-3-70B") != NULL, "header: model");
	CHECK(strstr(screen, "DGX H100 512xH100-SXM5-80GB") != NULL, "header: cluster and devices");
	CHECK(strstr(screen, " Strategy") && strstr(screen, " Memory GiB") && strstr(screen, " Step ") &&
			strstr(screen, " Timeline 1f1b"), "all panes present at 80x24");
	const char *labels[] = {"dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro batch", "global batch",
		"seq length", "sp", "recompute", "schedule", "precision", "budget GiB"};
	int all = 1;
	char row[64];
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strstr(knob_row(screen, labels[i], row, sizeof row), "(no row"))
			all = 0;
	CHECK(all, "all 16 knobs listed");
	CHECK(strstr(screen, "MFU") && strstr(screen, "HFU") && strstr(screen, "tok/s"), "MFU, HFU, tokens/s");
	CHECK(strstr(screen, "compute") && strstr(screen, "bubble") && strstr(screen, "tp comm"), "time breakdown rows");
	CHECK(strstr(screen, " s0  F") && strstr(screen, " s3  ."), "timeline lanes: stage 0 starts with F, stage 3 idles");
	CHECK(strstr(screen, "W weights G grads") != NULL, "memory legend (ASCII glyphs)");
}

static void test_step(void)
{
	char s0a[256], s0b[256], row[64];
	play("", before);
	stage0(before, s0a, sizeof s0a);
	play("jl", screen);
	stage0(screen, s0b, sizeof s0b);
	CHECK(strstr(knob_row(screen, "tp", row, sizeof row), "16") != NULL, check_fmt("j l: tp 8 -> 16 (%s)", row));
	CHECK(strstr(knob_row(screen, "dp", row, sizeof row), " 8") != NULL, "dp re-derived to 8");
	CHECK(strcmp(s0a, s0b) != 0, check_fmt("memory of stage 0 changed (%s)", s0b));
	CHECK(strstr(screen, "dp 16 -> 8, tp 8 -> 16") != NULL, "message says what moved");
	play("j", before);
	play("jlu", screen);
	static char b0[SCREEN], b1[SCREEN];
	body(before, b0, sizeof b0);
	body(screen, b1, sizeof b1);
	CHECK(!strcmp(b0, b1), "u undoes the step: the panes are the starting ones");
	play("jlllllll", screen);
	CHECK(strstr(screen, "no larger tp is valid") && strstr(screen, "attention heads"),
			"stepping past the largest valid tp: the core's reason on the message line");
}

static void test_invalid(void)
{
	char s0a[256], s0b[256];
	play("", before);
	stage0(before, s0a, sizeof s0a);
	/* global batch is the 10th knob: type 2 */
	play("jjjjjjjjj\r2\r", screen);
	stage0(screen, s0b, sizeof s0b);
	CHECK(strstr(screen, "invalid: global_batch=2 is not divisible by dp*micro_batch") != NULL,
			"typed invalid value: the reason on the message line");
	CHECK(strstr(screen, "(last valid)") && strstr(screen, "INVALID"), "panes say they show the last valid plan");
	CHECK(!strcmp(s0a, s0b), "the last valid memory stays on screen");
	/* moving on keeps the reason visible */
	shows("jjjjjjjjj\r2\rj", "invalid: global_batch=2", "the reason stays while the plan is invalid");
	play(":set tp=6\r", screen);
	CHECK(strstr(screen, "invalid:") && strstr(screen, "does not"), "invalid :set shows the core's reason");
	shows(":set tp=abc\r", "tp must be an integer", "unparsable value refused with the parser's reason");
	shows(":frobnicate\r", "unknown command ':frobnicate'", "unknown command named");
}

static void test_pin(void)
{
	char row[64];
	play("jp", screen);
	CHECK(knob_row(screen, "tp", row, sizeof row)[1] == '*', check_fmt("p pins tp (%s)", row));
	CHECK(strstr(screen, "pinned tp=8") != NULL, "message: pinned tp=8");
	shows("jpl", "tp is pinned", "a pinned knob does not step");
	play("jpp", screen);
	CHECK(knob_row(screen, "tp", row, sizeof row)[1] != '*' && strstr(screen, "unpinned tp=8"), "p again unpins");
	shows("pjl", "dp would change, and it is pinned", "tp cannot move while dp is pinned");
}

static void test_help(void)
{
	play("?", screen);
	int nb, all = 1;
	const tui_binding *b = tui_bindings(&nb);
	for (int i = 0; i < nb; i++)
		if (!strstr(screen, b[i].names) || !strstr(screen, b[i].help)) {
			printf("  help lacks %s / %s\n", b[i].names, b[i].help);
			all = 0;
		}
	CHECK(all, check_fmt("? lists every one of the %d bindings at 80x24", nb));
	shows("?x", " Strategy", "any key closes the help");
}

static void test_sizes(void)
{
	play_size("", 20, 60, screen);
	CHECK(strstr(screen, "Terminal too small") && strstr(screen, "80x24"), "60x20: too small, says the minimum");
	play_size("jl", 20, 60, screen);
	CHECK(strstr(screen, "Terminal too small") != NULL, "keys do not act while too small");
	play_size("", 60, 200, screen);
	CHECK(strstr(screen, " s3  ") && strstr(screen, "optimizer"), "200x60 draws everything");
	play_size("D", 24, 80, screen);
	CHECK(strstr(screen, "frame") && strstr(screen, "median") && strstr(screen, "p90"), "D shows the frame timer");
	shows("z", "32 micro-batches", "z draws the whole step");
}

static void test_save_and_pickers(const char *dir)
{
	char path[700], err[512];
	if (chdir(dir))
		return;
	play("jl:w out.yaml\r", screen);
	snprintf(path, sizeof path, "%s/out.yaml", dir);
	plan_t *p = malloc(sizeof *p);
	int rc = p ? plan_load_file(p, path, &paths, err, sizeof err) : -1;
	CHECK(rc == 0 && p->strategy.tp == 16 && strstr(screen, "saved out.yaml"), ":w FILE writes a plan that loads");
	/* w on the default plan asks for a name; Enter takes the offered one */
	play("w\r", screen);
	snprintf(path, sizeof path, "%s/plan.yaml", dir);
	CHECK(access(path, R_OK) == 0 && strstr(screen, "saved plan.yaml"), "w asks for a file name (plan.yaml)");
	unlink(path);
	/* open it back */
	play(":e out.yaml\r", screen);
	char row[64];
	CHECK(strstr(screen, "opened out.yaml") && strstr(knob_row(screen, "tp", row, sizeof row), "16"), ":e FILE opens a plan");
	shows("o/no/such.yaml\r", "/no/such.yaml", "o with a missing file: the error names it");
	snprintf(path, sizeof path, "%s/out.yaml", dir);
	unlink(path);
	free(p);
	play("m", screen);
	CHECK(strstr(screen, "Choose a model") && strstr(screen, "llama3-70b") && strstr(screen, "deepseek-v3"),
			"m lists the model presets");
	shows("mg\r", "DeepSeek-V3", "picking the first model (deepseek-v3) changes the header");
	play("c", screen);
	CHECK(strstr(screen, "Choose a cluster") && strstr(screen, "dgx-h100"), "c lists the cluster presets");
	shows(":theme light\r", "theme light", ":theme light");
	shows("t", "theme ", "t cycles to the next theme");
	shows("jl:q\r", "unsaved changes", ":q with unsaved changes warns first");
}

/* Random keys, including prompts, pickers and overlays: no crash, no sanitizer report. */
static void test_fuzz(void)
{
	static const int pool[] = {'j', 'k', 'h', 'l', '+', '-', 'g', 'G', 'p', 'u', 'z', 'D', '?', ':', 's', 'e', 't',
		' ', '=', '0', '1', '2', '8', '\r', 27, 127, 'm', 'c', 'x', KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT,
		KEY_RESIZE, KEY_HOME, KEY_END, KEY_NPAGE, 'w', 'a'};
	int keys[3000];
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		seed = seed * 1103515245u + 12345u;
		keys[i] = pool[(seed >> 16) % (sizeof pool / sizeof pool[0])];
	}
	char err[256];
	int n = tui_replay(&paths, NULL, keys, 3000, 24, 80, 0, NULL, NULL, 0, err, sizeof err);
	CHECK(n == 3000, check_fmt("3000 random keys replayed (%d)", n));
	n = tui_replay(&paths, NULL, keys, 1500, 30, 100, TUI_REPLAY_ASCII, NULL, screen, SCREEN, err, sizeof err);
	CHECK(n == 1500, "1500 more on another size and glyph set");
}

int main(void)
{
	char cwd[1024];
	if (!getcwd(cwd, sizeof cwd))
		return 1;
	setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	test_start();
	test_step();
	test_invalid();
	test_pin();
	test_help();
	test_sizes();
	char dir[256];
	snprintf(dir, sizeof dir, "%s/strata-tui.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir)) {
		test_save_and_pickers(dir);
		test_fuzz(); /* cwd is the temporary directory: a fuzzed `w` writes there */
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (chdir(cwd) || system(cmd))
			printf("  could not remove %s\n", dir);
	}
	return check_done();
}
