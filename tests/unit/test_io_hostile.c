/* Unit tests for the hostile-input fixes in src/io: names cut on UTF-8 character boundaries
 * (text_copy) and plans with such names and with escaped control characters saved and
 * loaded back; the save refusing a text that would not load; the atomic save's modes
 * (umask, no set-user-ID bits), temporary names (255-byte file names, stale files of killed
 * saves removed) and reasons; the loader refusing FIFOs, devices, sockets and directories
 * without blocking; the terminal-safe form of input strings (text_safe) and the JSON writer's
 * escapes; the tape the YAML loader stores a document in (items, maps, positions across its
 * pages and its child indexes). */
#include "check.h"
#include "io/atomic.h"
#include "io/json.h"
#include "io/paths.h"
#include "io/plan.h"
#include "io/plan_write.h"
#include "io/text.h"
#include "io/ydoc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static paths_t paths;
static plan_t a, b; /* large: keep them off the stack */
static char tmpdir[256];

/* 1 when s is valid UTF-8 throughout. */
static int utf8_ok(const char *s)
{
	while (*s) {
		int valid;
		size_t k = text_utf8_next(s, &valid);
		if (!valid)
			return 0;
		s += k;
	}
	return 1;
}

/* Entries of tmpdir other than . and .. */
static int count_files(void)
{
	DIR *d = opendir(tmpdir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The text of a file (static buffer), "" when unreadable. */
static const char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;
	if (f) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static void test_text(void)
{
	char e40[81] = "", dst[64], buf[32];
	for (int i = 0; i < 40; i++)
		strcat(e40, "\xc3\xa9");
	size_t n = text_copy(dst, sizeof dst, e40);
	CHECK(n == 80 && strlen(dst) == 62 && utf8_ok(dst), "text_copy: 40 x é into 64 bytes keeps 31 whole é");
	CHECK(text_copy(dst, sizeof dst, "llama3-8b") == 9 && !strcmp(dst, "llama3-8b"), "text_copy: short ASCII");
	CHECK(text_copy(dst, 4, "ab\xe2\x82\xac") == 5 && !strcmp(dst, "ab"), "text_copy: a 3-byte € not cut");
	CHECK(text_copy(dst, 5, "a\xf0\x9f\x98\x80z") && !strcmp(dst, "a"), "text_copy: a 4-byte emoji not cut");

	CHECK(!strcmp(text_safe(buf, sizeof buf, "\x1b]0;pwned\x07\x1b[2J"), "?]0;pwned??[2J"),
			"text_safe: ESC and BEL (C0) become ?");
	CHECK(!strcmp(text_safe(buf, sizeof buf, "a\x7f" "b\tc\n"), "a?b?c?"), "text_safe: DEL, tab, newline");
	CHECK(!strcmp(text_safe(buf, sizeof buf, "x\xc2\x9b" "31m\xc2\x85y"), "x?31m?y"),
			"text_safe: C1 controls in UTF-8 form (CSI U+009B, NEL U+0085) become ?");
	CHECK(!strcmp(text_safe(buf, sizeof buf, "caf\xc3\xa9 \xc2\xa0\xe2\x82\xac"), "caf\xc3\xa9 \xc2\xa0\xe2\x82\xac"),
			"text_safe: printable UTF-8 (é, NBSP, €) kept");
	CHECK(!strcmp(text_safe(buf, sizeof buf, "a\x9b" "b\xc3" "c\xff"), "a?b?c?"),
			"text_safe: bytes that are not UTF-8 (a raw 8-bit CSI among them) become ?");
	CHECK(!strcmp(text_safe(buf, 4, "ab\xc3\xa9"), "ab"), "text_safe: cut on a character boundary");
	char in[32] = "in\x1bplace\xc2\x9b";
	CHECK(!strcmp(text_safe(in, sizeof in, in), "in?place?"), "text_safe: in place");
}

/* json_str of s at the top level, as text (static buffer). */
static const char *json_of(const char *s)
{
	static char out[256];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return "";
	json_w w;
	json_init(&w, f, 0);
	json_str(&w, NULL, s);
	fclose(f);
	snprintf(out, sizeof out, "%s", text ? text : "");
	free(text);
	return out;
}

static void test_json(void)
{
	CHECK(!strcmp(json_of("\x1b[2J\x07"), "\"\\u001b[2J\\u0007\""), "json: C0 controls as \\u00XX");
	CHECK(!strcmp(json_of("d\x7f"), "\"d\\u007f\""), "json: DEL as \\u007f");
	CHECK(!strcmp(json_of("\xc2\x9b" "31m\xc2\x80\xc2\x9f"), "\"\\u009b31m\\u0080\\u009f\""),
			"json: C1 controls as \\u0080-\\u009f");
	CHECK(!strcmp(json_of("\xc2\xa0\xc3\xa9"), "\"\xc2\xa0\xc3\xa9\""), "json: U+00A0 and é stay characters");
}

/* Save p to path and load it back into b; 0 when both worked. */
static int save_load(plan_t *p, const char *path, char *err, size_t n)
{
	if (plan_save(p, path, &paths, err, n))
		return -1;
	return plan_load_file(&b, path, &paths, err, n) ? -1 : 0;
}

static void test_names_save(void)
{
	char path[512], err[1024], text[2048], e40[81] = "";
	for (int i = 0; i < 40; i++)
		strcat(e40, "\xc3\xa9");
	snprintf(path, sizeof path, "%s/plan.yaml", tmpdir);
	snprintf(text, sizeof text,
			"id: \"%s%s\"\nsource: \"%s\"\n"
			"model: {name: \"%s\", hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 4,\n"
			"        num_attention_heads: 8, num_key_value_heads: 8, vocab_size: 32000}\n"
			"cluster: {name: \"%s\", device: {name: \"%s\", memory_gib: 80, hbm_gbps: 3350,\n"
			"          peak_tflops: {bf16: 989, fp16: 989, fp8: 1979}},\n"
			"          node: {devices: 8, link_gbps: 450}, network: {link_gbps: 50, latency_us: 5}}\n"
			"devices: 8\n", e40, e40, e40, e40, e40, e40);
	put_file(path, text);
	int rc = plan_load_file(&a, path, &paths, err, sizeof err);
	CHECK(rc == 0, check_fmt("40 x é names: the plan loads (%s)", rc ? err : "ok"));
	if (rc)
		return;
	CHECK(utf8_ok(a.model.name) && utf8_ok(a.cluster.name) && utf8_ok(a.cluster.device) && utf8_ok(a.id) &&
			utf8_ok(a.source) && strlen(a.model.name) == 62,
			"40 x é names: cut to whole characters (model, cluster, device, id, source)");
	CHECK(save_load(&a, path, err, sizeof err) == 0 && !strcmp(b.model.name, a.model.name) &&
			!strcmp(b.cluster.device, a.cluster.device) && !strcmp(b.id, a.id),
			check_fmt("40 x é names: saved over the plan, it loads back the same (%s)", err));
	CHECK(count_files() == 1, "40 x é names: no temporary file left");

	/* names carrying characters libyaml refuses raw: loaded from escapes, saved as escapes */
	static const char *const odd[] = {"\\x1b]0;t\\x07", "\\u0085nel", "c1\\u009b", "del\\x7f", "nc\\uFFFE\\uFFFF",
		"tab\\tq\\\"b\\\\", "ls\\u2028ps\\u2029bom\\uFEFF"};
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		snprintf(text, sizeof text, "model: {name: \"%s\", hidden_size: 1024, num_hidden_layers: 4,\n"
				"  num_attention_heads: 8, vocab_size: 32000}\ncluster: dgx-h100\ndevices: 8\n", odd[i]);
		put_file(path, text);
		if (plan_load_file(&a, path, &paths, err, sizeof err)) {
			CHECK(0, check_fmt("odd name %s: loads (%s)", odd[i], err));
			continue;
		}
		CHECK(save_load(&a, path, err, sizeof err) == 0 && !strcmp(b.model.name, a.model.name),
				check_fmt("odd name %s: survives save and load (%s)", odd[i], err));
	}

	/* a plan whose text would not load is not saved: the old file stays */
	if (plan_load_file(&a, path, &paths, err, sizeof err) == 0) {
		char before[65536];
		snprintf(before, sizeof before, "%s", slurp(path));
		a.devices = 0;
		err[0] = 0;
		CHECK(plan_save(&a, path, &paths, err, sizeof err) == -1 && strstr(err, "would not load back") &&
				strstr(err, "devices") && strstr(err, "previous file is unchanged"),
				check_fmt("save: a text that would not load is refused and says why (%s)", err));
		CHECK(!strcmp(slurp(path), before), "save: the refused text left the old file byte for byte");
		CHECK(count_files() == 1, "save: the refused text left no temporary file");
	}
	/* pins and references longer than their buffers are refused, not cut */
	char longpin[300] = "tp=";
	memset(longpin + 3, '8', 200);
	longpin[203] = 0;
	snprintf(text, sizeof text, "model: llama3-8b\ncluster: dgx-h100\ndevices: 8\npins: [\"%s\"]\n", longpin);
	CHECK(plan_load_text(&a, text, "p.yaml", &paths, err, sizeof err) == 2 && strstr(err, "at most 127 bytes"),
			check_fmt("a pin longer than 127 bytes is refused (%s)", err));
	unlink(path);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static int write_hello(FILE *f, void *arg, char *err, size_t n)
{
	(void)arg;
	(void)err;
	(void)n;
	fputs("hello: 1\n", f);
	return 0;
}

static void test_modes(void)
{
	char path[512], err[1024];
	snprintf(path, sizeof path, "%s/m.yaml", tmpdir);
	mode_t old = umask(077);
	CHECK(atomic_replace(path, "a: 1\n", 5, err, sizeof err) == 0 && mode_of(path) == 0600,
			check_fmt("atomic: a new file under umask 077 is 0600 (%o)", (unsigned)mode_of(path)));
	unlink(path);
	umask(022);
	CHECK(atomic_replace(path, "a: 1\n", 5, err, sizeof err) == 0 && mode_of(path) == 0644,
			check_fmt("atomic: a new file under umask 022 is 0644 (%o)", (unsigned)mode_of(path)));
	umask(old);
	static const struct { mode_t in, out; const char *what; } keep[] = {
		{04755, 0755, "set-user-ID"}, {02775, 0775, "set-group-ID"}, {01644, 0644, "sticky"}, {0640, 0640, "plain"},
	};
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		if (chmod(path, keep[i].in) || mode_of(path) != keep[i].in) {
			CHECK(1, check_fmt("atomic: %s bit cannot be set here (skipped)", keep[i].what));
			continue;
		}
		CHECK(atomic_write_with(path, write_hello, NULL, err, sizeof err) == 0 && mode_of(path) == keep[i].out,
				check_fmt("atomic: replacing a %04o file gives %04o (%s dropped, permissions kept): %04o",
					(unsigned)keep[i].in, (unsigned)keep[i].out, keep[i].what, (unsigned)mode_of(path)));
	}
	/* plan_save (which loads the text back before the rename) ends with the same modes */
	if (plan_load_text(&a, "model: llama3-8b\ncluster: dgx-h100\ndevices: 8\n", "p.yaml", &paths, err,
				sizeof err) == 0 && plan_save(&a, path, &paths, err, sizeof err) == 0 && !chmod(path, 04640))
		CHECK(plan_save(&a, path, &paths, err, sizeof err) == 0 && mode_of(path) == 0640,
				check_fmt("plan_save: a 4640 plan is replaced by a 0640 one (%04o)", (unsigned)mode_of(path)));
	unlink(path);
}

/* A PID that has just exited (reaped), so it runs no process now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static void test_tmpfiles(void)
{
	char path[512], err[1024], stale[600], stale2[600], live[600], other[600];
	snprintf(path, sizeof path, "%s/t.yaml", tmpdir);
	pid_t dead = dead_pid();
	snprintf(stale, sizeof stale, "%s/.t.yaml.strata-tmp.%ld", tmpdir, (long)dead);
	snprintf(stale2, sizeof stale2, "%s/.t.yaml.strata-tmp.%ld-3", tmpdir, (long)dead);
	snprintf(live, sizeof live, "%s/.t.yaml.strata-tmp.%ld", tmpdir, (long)getppid());
	snprintf(other, sizeof other, "%s/.t.yaml.strata-tmp.notapid", tmpdir);
	put_file(stale, "half a plan");
	put_file(stale2, "half a plan");
	put_file(live, "a save in progress");
	put_file(other, "someone else's");
	CHECK(dead > 0 && atomic_replace(path, "a: 1\n", 5, err, sizeof err) == 0, "tmp: save with stale temporaries");
	CHECK(access(stale, F_OK) && access(stale2, F_OK), "tmp: temporaries of a dead PID are removed");
	CHECK(!access(live, F_OK), "tmp: the temporary of a running PID is kept");
	CHECK(!access(other, F_OK), "tmp: a file that only looks alike is kept");
	unlink(live);
	unlink(other);
	unlink(path);

	/* file names up to 255 bytes save: the temporary name is cut to fit, on a character */
	char name[256];
	memset(name, 'n', 250);
	strcpy(name + 250, ".yaml");
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	CHECK(atomic_replace(path, "a: 1\n", 5, err, sizeof err) == 0 && !access(path, F_OK) && count_files() == 1,
			check_fmt("tmp: a 255-byte file name saves, no temporary left (%s)", err));
	CHECK(atomic_replace(path, "a: 2\n", 5, err, sizeof err) == 0 && !strcmp(slurp(path), "a: 2\n"),
			"tmp: and is replaced again");
	unlink(path);
	name[0] = 0;
	for (int i = 0; i < 125; i++)
		strcat(name, "\xc3\xa9");
	strcat(name, ".yaml");
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	CHECK(atomic_replace(path, "a: 1\n", 5, err, sizeof err) == 0 && count_files() == 1,
			check_fmt("tmp: a 255-byte name of é saves (%s)", err));
	unlink(path);

	/* reasons name the call that failed */
	snprintf(path, sizeof path, "%s/no/such/dir/x.yaml", tmpdir);
	CHECK(atomic_replace(path, "a", 1, err, sizeof err) == -1 && strstr(err, "cannot create a file in") &&
			strstr(err, "open .x.yaml.strata-tmp.") && strstr(err, strerror(ENOENT)),
			check_fmt("atomic: a missing directory names open and its reason (%s)", err));
	snprintf(path, sizeof path, "%s/big.yaml", tmpdir);
	put_file(path, "old\n");
	struct rlimit lim, small = {16, 16};
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
	if (!getrlimit(RLIMIT_FSIZE, &lim) && (small.rlim_max = lim.rlim_max, !setrlimit(RLIMIT_FSIZE, &small))) {
		char data[100];
		memset(data, 'x', sizeof data);
		int rc = atomic_replace(path, data, sizeof data, err, sizeof err);
		setrlimit(RLIMIT_FSIZE, &lim);
		CHECK(rc == -1 && strstr(err, "write .big.yaml.strata-tmp.") && strstr(err, strerror(EFBIG)) &&
				strstr(err, "previous file is unchanged") && !strcmp(slurp(path), "old\n") && count_files() == 1,
				check_fmt("atomic: a failed write names write and its reason, keeps the file (%s)", err));
	}
	signal(SIGXFSZ, was);
	unlink(path);
}

/* Load PATH with the plan loader under a 5 s alarm; the message in err. */
static int load_guarded(const char *path, char *err, size_t n)
{
	alarm(5); /* a loader that blocks is killed, and the test binary fails */
	int rc = plan_load_file(&a, path, &paths, err, n);
	alarm(0);
	return rc;
}

static void test_special_files(void)
{
	char fifo[512], sock[512], dir[512], err[1024], text[1200];
	snprintf(fifo, sizeof fifo, "%s/fifo.yaml", tmpdir);
	if (mkfifo(fifo, 0600) == 0) {
		CHECK(load_guarded(fifo, err, sizeof err) == 2 && strstr(err, "not a regular file (a FIFO)"),
				check_fmt("FIFO as a plan: refused at once (%s)", err));
		snprintf(text, sizeof text, "model: %s\ncluster: dgx-h100\ndevices: 8\n", fifo);
		alarm(5);
		int rc = plan_load_text(&a, text, "p.yaml", &paths, err, sizeof err);
		alarm(0);
		CHECK(rc == 2 && strstr(err, "p.yaml:1:8:") && strstr(err, "a FIFO"),
				check_fmt("FIFO as a plan's model: refused at once (%s)", err));
		alarm(5);
		yd_doc *d = yd_load_file(fifo, err, sizeof err);
		alarm(0);
		CHECK(!d && strstr(err, "a FIFO"), "FIFO: yd_load_file refuses it");
		yd_free(d);
		unlink(fifo);
	}
	CHECK(load_guarded("/dev/null", err, sizeof err) == 2 && strstr(err, "(a character device)"),
			check_fmt("/dev/null as a plan: a character device (%s)", err));
	snprintf(dir, sizeof dir, "%s/d.yaml", tmpdir);
	mkdir(dir, 0700);
	CHECK(load_guarded(dir, err, sizeof err) == 2 && strstr(err, strerror(EISDIR)),
			check_fmt("a directory as a plan: %s", err));
	rmdir(dir);
	snprintf(sock, sizeof sock, "%s/s.yaml", tmpdir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (fd >= 0 && strlen(sock) < sizeof sa.sun_path) {
		strcpy(sa.sun_path, sock);
		if (!bind(fd, (struct sockaddr *)&sa, sizeof sa))
			CHECK(load_guarded(sock, err, sizeof err) == 2 && strstr(err, "(a socket)"),
					check_fmt("a socket as a plan: %s", err));
		unlink(sock);
	}
	if (fd >= 0)
		close(fd);
	/* the atomic save does not write into a FIFO either */
	if (mkfifo(fifo, 0600) == 0) {
		alarm(5);
		int rc = atomic_replace(fifo, "a", 1, err, sizeof err);
		alarm(0);
		CHECK(rc == -1 && strstr(err, "not a regular file (a FIFO)"), check_fmt("save onto a FIFO: refused (%s)", err));
		unlink(fifo);
	}
}

/* The tape: long and short scalars around the inline limits, many items (the child
 * index), maps, nesting, and positions across pages. */
static void test_tape(void)
{
	enum { N = 20000 };
	size_t cap = (size_t)N * 16 + 100000;
	char *t = malloc(cap), err[512];
	if (!t)
		return;
	/* a flow sequence on one line: item i at column 2 + 2i, past every page and index */
	size_t o = 0;
	t[o++] = '[';
	for (int i = 0; i < N; i++)
		o += (size_t)sprintf(t + o, "%s%d", i ? "," : "", i % 10);
	t[o++] = ']';
	yd_doc *d = yd_load_string(t, o, "flow", err, sizeof err);
	int ok = d && yd_len(yd_root(d)) == N;
	for (int i = 0; ok && i < N; i += 997)
		ok = yd_str(yd_item(yd_root(d), (size_t)i))[0] == '0' + i % 10 && yd_line(yd_item(yd_root(d), (size_t)i)) == 1 &&
			yd_col(yd_item(yd_root(d), (size_t)i)) == 2 + 2 * i;
	CHECK(ok && yd_str(yd_item(yd_root(d), N - 1))[0] == '0' + (N - 1) % 10 && !yd_item(yd_root(d), N),
			"tape: 20000 flow items, text and column of every 997th and the last");
	yd_free(d);

	/* a block map of scalars of every length code: 0, 29, 30, 255, 256, 257, 5000 bytes */
	static const int lens[] = {0, 1, 29, 30, 31, 255, 256, 257, 5000, 70000};
	o = 0;
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		o += (size_t)sprintf(t + o, "k%zu: \"", k);
		memset(t + o, 'a' + (int)k, (size_t)lens[k]);
		o += (size_t)lens[k];
		o += (size_t)sprintf(t + o, "\"\n");
	}
	o += (size_t)sprintf(t + o, "plain: yes\nlast: [1, {x: 2}]\n");
	d = yd_load_string(t, o, "lens", err, sizeof err);
	ok = d != NULL;
	for (size_t k = 0; ok && k < sizeof lens / sizeof lens[0]; k++) {
		char key[8];
		snprintf(key, sizeof key, "k%zu", k);
		const char *s = yd_str(yd_get(yd_root(d), key));
		ok = s && strlen(s) == (size_t)lens[k] && (lens[k] == 0 || (s[0] == 'a' + (int)k && s[lens[k] - 1] == 'a' + (int)k)) &&
			!yd_plain(yd_get(yd_root(d), key)) && yd_line(yd_keynode(yd_root(d), k)) == (int)k + 1;
	}
	CHECK(ok && yd_plain(yd_get(yd_root(d), "plain")) && yd_line(yd_get(yd_root(d), "last")) == 12 &&
			!strcmp(yd_str(yd_get(yd_item(yd_get(yd_root(d), "last"), 1), "x")), "2") &&
			yd_col(yd_item(yd_get(yd_root(d), "last"), 1)) == 11,
			"tape: scalars of every length code, their lines, plain flags and what follows them");
	yd_free(d);

	/* a sequence of maps of 40 keys (each map has an index), deep lines, then a duplicate */
	o = 0;
	for (int i = 0; i < 500; i++) {
		for (int k = 0; k < 40; k++)
			o += (size_t)sprintf(t + o, "%sk%d: %d\n", k ? "  " : "- ", k, i * 40 + k);
	}
	d = yd_load_string(t, o, "maps", err, sizeof err);
	ok = d && yd_len(yd_root(d)) == 500;
	for (int i = 0; ok && i < 500; i += 37) {
		const yd_node *m = yd_item(yd_root(d), (size_t)i);
		char want[16];
		snprintf(want, sizeof want, "%d", i * 40 + 39);
		ok = yd_len(m) == 40 && !strcmp(yd_str(yd_val(m, 39)), want) && !strcmp(yd_key(m, 17), "k17") &&
			yd_line(yd_val(m, 39)) == i * 40 + 40 && yd_col(yd_val(m, 39)) == 8 && yd_line(m) == i * 40 + 1 &&
			yd_col(m) == 3 && yd_get(m, "k39") == yd_val(m, 39);
	}
	CHECK(ok, "tape: 500 maps of 40 keys: values, keys and positions by index and by name");
	yd_free(d);
	memcpy(t + o, "- {a: 1, a: 2}\n", 16);
	d = yd_load_string(t, o + 15, "maps", err, sizeof err);
	CHECK(!d && strstr(err, "maps:20001:10: duplicate key 'a' (first at 20001:4)"),
			check_fmt("tape: a duplicate after 20000 lines is found with its position (%s)", err));
	yd_free(d);
	free(t);
}

int main(void)
{
	char cwd[1024];
	if (getcwd(cwd, sizeof cwd))
		setenv("STRATA_DATA", cwd, 1);
	paths_init(&paths, "strata");
	snprintf(tmpdir, sizeof tmpdir, "%s/strata-ioh.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		CHECK(0, "mkdtemp");
		return 1;
	}
	test_text();
	test_json();
	test_names_save();
	test_modes();
	test_tmpfiles();
	test_special_files();
	test_tape();
	rmdir(tmpdir);
	return check_done();
}
