/* Unit tests of the explorer through its headless replay (src/tui/replay.c): the same key
 * handler and renderer as a terminal session, curses writing to /dev/null, the final
 * screen read back as text (ASCII glyphs). The tmux tests in tests/cli/tui_*.sh drive the
 * real binary; these cover more keys, faster, and under the sanitizers. */
#include "check.h"
#include "io/export.h"
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
	CHECK(strstr(screen, " strata | default plan | Llama-3-70B") != NULL, "header: model");
	CHECK(strstr(screen, "DGX H100 512xH100-SXM5-80GB") != NULL, "header: cluster and devices");
	CHECK(strstr(screen, " Strategy") && strstr(screen, " Allocated GiB") && strstr(screen, " Step ") &&
			strstr(screen, " Timeline 1f1b"), "all panes present at 80x24");
	/* 17 knobs in 16 rows at 80x24: devices first, the budget one row below (the title
	 * says so; the budget is also in the memory pane's title) */
	const char *labels[] = {"devices", "dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro batch",
		"global batch", "seq length", "sp", "recompute", "schedule", "precision"};
	int all = 1;
	char row[64];
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strstr(knob_row(screen, labels[i], row, sizeof row), "(no row"))
			all = 0;
	CHECK(all, "16 knobs listed, devices first");
	CHECK(strstr(screen, " Strategy              v1 |") && strstr(screen, "budget 75.7"),
			"the knob list: one more row below (v1), the budget in the memory title");
	CHECK(strstr(screen, "MFU") && strstr(screen, "HFU") && strstr(screen, "tok/s"), "MFU, HFU, tokens/s");
	CHECK(strstr(screen, "compute") && strstr(screen, "bubble") && strstr(screen, "tp comm"), "time breakdown rows");
	CHECK(strstr(screen, " s0  F") && strstr(screen, " s3  ."), "timeline lanes: stage 0 starts with F, stage 3 idles");
	CHECK(strstr(screen, "P params G grads") != NULL, "memory legend (ASCII glyphs)");
}

static void test_step(void)
{
	char s0a[256], s0b[256], row[64];
	play("", before);
	stage0(before, s0a, sizeof s0a);
	play("jl", screen);
	stage0(screen, s0b, sizeof s0b);
	/* fill row first: the order in which CHECK's arguments are evaluated is unspecified */
	const char *tprow = knob_row(screen, "tp", row, sizeof row);
	CHECK(strstr(tprow, "16") != NULL, check_fmt("j l: tp 8 -> 16 (%s)", row));
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
	/* a list value keeps its commas: the words after it extend the list, the next key=value
	 * starts a new assignment */
	play(":set recompute_modules=moe_act,layernorm, tp=1\r", screen);
	CHECK(!strstr(screen, "write key=value") && !strstr(screen, "is not a module"),
			":set recompute_modules=a,b takes the whole list");
	shows(":set recompute_modules=moe_act,attn\r", "'attn' is not a module", ":set names a wrong module in a list");
	/* the precision-aware optimizer's keys: bf16 moments shrink stage 0's optimizer states */
	char o0[256], o1[256];
	play("", screen);
	stage0(screen, o0, sizeof o0);
	play(":set exp_avg_dtype=bf16 exp_avg_sq_dtype=bf16\r", screen);
	stage0(screen, o1, sizeof o1);
	CHECK(!strstr(screen, "invalid") && o0[0] && strcmp(o0, o1), ":set exp_avg_dtype=bf16 changes the memory");
	shows(":set main_grads_dtype=fp16\r", "main_grads_dtype must be one of fp32, bf16",
			":set refuses a dtype Megatron does not offer");
	/* Megatron's split keys and optimizer offload: stage 0 holds 19 layers, then no
	 * optimizer state on the device */
	play(":set first_stage_layers=19 last_stage_layers=19\r", screen);
	CHECK(!strstr(screen, "invalid") && strstr(screen, "first_stage_layers"),
			":set first_stage_layers=19 last_stage_layers=19 takes the published layout");
	shows(":set first_stage_layers=18\r", "middle", ":set refuses a split Megatron refuses, with the reason");
	play(":set optimizer_offload=1\r", screen);
	stage0(screen, o1, sizeof o1);
	CHECK(!strstr(screen, "invalid") && strcmp(o0, o1), ":set optimizer_offload=1 changes the memory");
	shows(":set optimizer_offload=1.5\r", "optimizer_offload must be a fraction from 0 to 1",
			":set refuses an offload fraction above 1");
}

static void test_pin(void)
{
	char row[64];
	play("jp", screen);
	const char *pinned = knob_row(screen, "tp", row, sizeof row);
	CHECK(pinned[1] == '*', check_fmt("p pins tp (%s)", row));
	CHECK(strstr(screen, "pinned tp=8") != NULL, "message: pinned tp=8");
	shows("jpl", "tp is pinned", "a pinned knob does not step");
	play("jpp", screen);
	CHECK(knob_row(screen, "tp", row, sizeof row)[1] != '*' && strstr(screen, "unpinned tp=8"), "p again unpins");
	shows("pjl", "dp would change, and it is pinned", "tp cannot move while dp is pinned");
}

static void test_help(void)
{
	/* more bindings than rows at 80x24: the first page and the page scrolled to the end */
	static char rest[SCREEN];
	play("?", screen);
	play("?jjjjjjjjjjjjjjjjjjjj", rest); /* lines 21-43: the last bindings, the commands */
	int nb, all = 1;
	const tui_binding *b = tui_bindings(&nb);
	for (int i = 0; i < nb; i++)
		if ((!strstr(screen, b[i].names) || !strstr(screen, b[i].help)) &&
				(!strstr(rest, b[i].names) || !strstr(rest, b[i].help))) {
			printf("  help lacks %s / %s\n", b[i].names, b[i].help);
			all = 0;
		}
	CHECK(all, check_fmt("? lists every one of the %d bindings at 80x24 (j scrolls)", nb));
	CHECK(strstr(rest, "after i: Enter or y keeps") && strstr(rest, ":export TARGET"),
			"the help's end: the ILP review and search table keys, :export and :lua");
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


/* Is there a memory row with a layer count ("| s0  ... 20L")? */
static int has_layers(const char *scr)
{
	for (const char *p = strstr(scr, "| s0  "); p; p = strstr(p + 1, "| s"))
		for (const char *e = strchr(p, '\n'), *q = p; q && e && q + 1 < e; q++)
			if (q[1] == 'L' && q[0] >= '0' && q[0] <= '9' && q[2] == ' ')
				return 1;
	return 0;
}

/* i: the ILP on the background job (the replay waits for it), the plan on trial, keep
 * or discard; the infeasible case names the stage. */
static void test_ilp(void)
{
	play("", before);
	play("i", screen);
	CHECK(strstr(screen, "ILP optimal, 1.") && strstr(screen, "over even: Enter/y keeps, n/Esc discards"),
			"i: the ILP's result and speedup, how to keep or discard it");
	CHECK(strstr(screen, "ILP allocated GiB") && has_layers(screen), "i: the memory pane shows layers per stage");
	CHECK(strstr(screen, "prep idle") && strstr(screen, "even ") && strstr(screen, "ILP step"),
			"i: the time pane splits the idle time and compares with the even split");
	play("i\r", screen);
	CHECK(strstr(screen, "kept the ILP plan") && has_layers(screen) && !strstr(screen, "ILP allocated GiB"),
			"Enter keeps the ILP plan: layers per stage stay, the trial is over");
	static char b0[SCREEN], b1[SCREEN];
	play("i\ru", screen);
	body(before, b0, sizeof b0);
	body(screen, b1, sizeof b1);
	CHECK(!strcmp(b0, b1), "u after keeping: the even split again");
	play("in", screen);
	body(screen, b1, sizeof b1);
	CHECK(!strcmp(b0, b1) && strstr(screen, "ILP plan discarded"), "n discards: the panes are the starting ones");
	play("iy", screen);
	CHECK(strstr(screen, "kept the ILP plan") != NULL, "y keeps too");
	play("i\r:even\r", screen);
	CHECK(strstr(screen, "even split again") && !has_layers(screen), ":even drops the kept split");
	play("i\rjl", screen);
	CHECK(strstr(screen, "tp 8 -> 16") && !strstr(screen, "INVALID"), "stepping tp keeps the plan valid after keeping");
	play("i\rjjl", screen);
	CHECK(strstr(screen, "ILP stage split dropped") && !has_layers(screen), "stepping pp drops the ILP split");
	play(":set budget=10\ri", screen);
	CHECK(strstr(screen, "ILP infeasible: stage 0 over budget by 5.") &&
			strstr(screen, "GiB even with full recompute"), "infeasible: which stage and by how much");
}

/* s: the search on the background job, the candidates table, Enter applies. */
static void test_search(void)
{
	char row[64];
	play("s", screen);
	CHECK(strstr(screen, " Search ") && strstr(screen, " strategies (") && strstr(screen, "/s)"),
			"s: the table's title with the space and the rate");
	CHECK(strstr(screen, "strategy") && strstr(screen, "MFU") && strstr(screen, "tok/s") && strstr(screen, "ILP") &&
			strstr(screen, ">  1 +1 dp"), "s: columns and the first candidate selected (in validated regimes)");
	/* issue 17: the marks of strata search (! for [unvalidated: ...], +N alike) and, under
	 * the list, the selected candidate against the plan part by part (search --compare) */
	CHECK(strstr(screen, "\n   8 +1 dp32 tp2 pp4 v6 cp2") != NULL, /* short words at 80 columns */
			"s: a row with a merged twin is marked +1");
	play("sjjjjjjj", screen);
	if (!CHECK(strstr(screen, " #8 vs the plan: ") &&
			strstr(screen, "\n validated regimes - +1 alike: dp16 tp2 pp4 vpp6 cp4") != NULL,
			"s: moving selects #8: its comparison and the strategy merged into it"))
		printf("%s", screen);
	/* the / filter: the cp 4 x tp 4 rows, first found at #145, rely on short-context CP */
	play("s/cp=4 tp=4\r", screen);
	if (!CHECK(strstr(screen, "\n>145!   dp16 tp4 pp2 v9 cp4") && strstr(screen, " of 200 /cp=4 tp=4") &&
			strstr(screen, "\n ! unvalidated: short-context cp - +0 alike") != NULL,
			"s: / keeps the matching rows; one in a regime not validated is marked ! and its regime spelt out"))
		printf("%s", screen);
	play("sjjjj", screen);
	if (!CHECK(strstr(screen, " #5 vs the plan: ") && strstr(screen, "\n validated regimes - +0 alike"),
			"s: a row in validated regimes says so"))
		printf("%s", screen);
	play("s\r", screen);
	const char *applied = knob_row(screen, "tp", row, sizeof row);
	CHECK(strstr(screen, "applied candidate #1") && strstr(applied, " 2"),
			check_fmt("Enter applies candidate #1 (tp %s)", row));
	play("sj\r", screen);
	CHECK(strstr(screen, "applied candidate #2") != NULL, "j then Enter applies #2");
	static char b0[SCREEN], b1[SCREEN];
	play("", before);
	play("s\ru", screen);
	body(before, b0, sizeof b0);
	body(screen, b1, sizeof b1);
	CHECK(!strcmp(b0, b1), "u undoes an applied candidate");
	play("jps\r", screen);
	CHECK(strstr(knob_row(screen, "tp", row, sizeof row), "8") && row[1] == '*', "a pinned tp=8 is kept");
	shows("s\x1b", " Strategy", "Esc closes the table");
}

/* e and :export write what export_save writes for the same plan. */
static void test_export(const char *dir)
{
	char path[700], want[700], err[512];
	snprintf(path, sizeof path, "%s/tui.deepspeed.json", dir);
	snprintf(want, sizeof want, "%s/want.json", dir);
	char keys[800];
	snprintf(keys, sizeof keys, ":export deepspeed %s\r", path);
	play(keys, screen);
	CHECK(strstr(screen, "not exported (:export! deepspeed writes the nearest it runs): deepspeed cann") &&
			access(path, F_OK) != 0, ":export of a plan DeepSpeed cannot run as priced: refused, nothing written");
	snprintf(keys, sizeof keys, ":export! deepspeed %s\r", path);
	play(keys, screen);
	plan_t *p = malloc(sizeof *p);
	if (!p || plan_load_text(p, plan_default_text, "default", &paths, err, sizeof err) ||
			strat_resolve(&p->strategy, p->devices, err, sizeof err) ||
			export_save(want, EXPORT_DEEPSPEED, p, err, sizeof err)) {
		CHECK(0, "export reference");
		free(p);
		return;
	}
	free(p);
	char cmd[6 * 700 + 128];
	/* the run lines name their own files */
	snprintf(cmd, sizeof cmd, "sed \"s|'%s'|FILE|\" '%s' >'%s.a' && sed \"s|'%s'|FILE|\" '%s' | cmp -s - '%s.a'", path,
			path, want, want, want, want);
	CHECK(strstr(screen, "exported") && system(cmd) == 0, ":export! deepspeed FILE = export_save of the same plan");
	shows(":export nonsense\r", "unknown export target 'nonsense'", ":export with a bad target says so");
	play("em\r", screen);
	snprintf(path, sizeof path, "%s/plan-llama3-70b.megatron.sh", dir);
	CHECK(strstr(screen, "exported plan-llama3-70b.megatron.sh for megatron") && access(path, R_OK) == 0,
			"e m Enter writes plan-MODEL.megatron.sh in the current directory");
	shows("et", "export torchtitan to: plan-llama3-70b.torchtitan.toml", "e t offers the torchtitan name");
	shows("e\x1b", "cancelled", "Esc at the target question cancels");
}

/* L and :lua: a recipe's plan becomes current; an error names file:line. */
static void test_lua(const char *dir)
{
	play("L", screen);
	CHECK(strstr(screen, "Choose a Lua recipe") && strstr(screen, "vlm") && strstr(screen, "zero_levels"),
			"L lists the recipes in lua/");
	play(":lua lua/vlm.lua\r", screen);
	CHECK(strstr(screen, "vlm-8b-vitl") && strstr(screen, "its plan is now the current one"),
			":lua lua/vlm.lua: its plan becomes the current one");
	play(":lua vlm\ru", screen);
	CHECK(strstr(screen, "Llama-3-70B") != NULL, ":lua NAME finds lua/NAME.lua; u undoes it");
	char bad[700], keys[800];
	snprintf(bad, sizeof bad, "%s/bad.lua", dir);
	FILE *f = fopen(bad, "w");
	if (f) {
		fputs("local x = 1\nlocal function f()\n  error('boom')\nend\nf()\n", f);
		fclose(f);
	}
	snprintf(keys, sizeof keys, ":lua %s\r", bad);
	play(keys, screen);
	CHECK(strstr(screen, "bad.lua:3: boom") && strstr(screen, "Llama-3-70B"),
			"a failing recipe: file:line on the message line, the plan unharmed");
	snprintf(keys, sizeof keys, ":lua %s\rO", bad);
	play(keys, screen);
	CHECK(strstr(screen, "stack traceback") && strstr(screen, "bad.lua:5"), "O shows the traceback");
	shows(":lua /no/such.lua\r", "/no/such.lua", "a missing recipe: the error names it");
	shows("O", "no recipe has run yet", "O before any recipe says so");
}

/* Random keys, including prompts, pickers and overlays: no crash, no sanitizer report. */
static void test_fuzz(void)
{
	/* no `s` here: a search on whatever random plan the keys made (up to thousands of
	 * devices) costs seconds under the sanitizers; the table gets its own round below */
	static const int pool[] = {'j', 'k', 'h', 'l', '+', '-', 'g', 'G', 'p', 'u', 'z', 'D', '?', ':', 'i', 'e', 't',
		' ', '=', '0', '1', '2', '8', '\r', 27, 127, 'm', 'c', 'x', KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT,
		KEY_RESIZE, KEY_HOME, KEY_END, KEY_NPAGE, 'w', 'a', 'y', 'n', 'O', 'd', 'L'};
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
	/* the candidates table: a search on the default plan, then random table keys */
	static const int table[] = {'j', 'k', 'g', 'G', KEY_NPAGE, KEY_PPAGE, KEY_UP, KEY_DOWN, '\r', 27, 'u', 'x'};
	for (int i = 0; i < 200; i++) {
		seed = seed * 1103515245u + 12345u;
		keys[i] = i % 25 == 0 ? 's' : table[(seed >> 16) % (sizeof table / sizeof table[0])];
	}
	n = tui_replay(&paths, NULL, keys, 200, 24, 80, 0, NULL, NULL, 0, err, sizeof err);
	CHECK(n == 200, "200 keys in and around the candidates table");
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
	test_ilp();
	test_search();
	char dir[256];
	snprintf(dir, sizeof dir, "%s/strata-tui.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir)) {
		test_lua(dir); /* before the chdir: the recipes are found from the repository root */
		test_save_and_pickers(dir);
		test_export(dir);
		test_fuzz(); /* cwd is the temporary directory: a fuzzed `w` writes there */
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (chdir(cwd) || system(cmd))
			printf("  could not remove %s\n", dir);
	}
	return check_done();
}
