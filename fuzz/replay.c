/* replay.c - a libFuzzer-compatible driver for builds without libFuzzer.
 *
 * usage: fuzz_NAME [-m MUTATIONS] [-s SEED] FILE_OR_DIR...
 * Runs LLVMFuzzerTestOneInput on every file (directories are read one level deep), then on
 * MUTATIONS deterministic mutants of each (bit flips, byte inserts and deletes, truncation,
 * splices of interesting tokens), so `make test` smoke-tests the targets with no clang.
 * Prints "PASS fuzz NAME: N inputs"; a crash is reported by the sanitizers or the signal. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_MAX (1u << 20)

typedef struct {
	unsigned long long state;
} rng_t;

static unsigned long long rng_next(rng_t *r)
{
	/* xorshift64*: deterministic so a failing mutant can be reproduced from its seed */
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 2685821657736338717ULL;
}

static const char *const tokens[] = {
	"\n", ": ", "- ", "[", "]", "{", "}", ",", "'", "\"", "&a ", "*a", "!!str ", "---\n", "...\n",
	"0", "-1", "1e308", "nan", ".inf", "-.inf", "4611686018427387904", "99999999999999999999",
	"tp", "pp", "dp", "vpp", "ep", "cp", "zero", "layers[", ":", "].", "stage", "recompute",
	"full", "selective", "none", "model", "cluster", "strategy", "devices", "=", "\t", "\xff",
	"\xc3\x28", "%YAML 1.1\n", "? ", "|\n", ">\n",
};

static size_t mutate(rng_t *r, unsigned char *buf, size_t len, size_t cap)
{
	int ops = 1 + (int)(rng_next(r) % 4);
	for (int i = 0; i < ops; i++) {
		unsigned long long x = rng_next(r);
		size_t pos = len ? (size_t)(x >> 8) % (len + 1) : 0;
		switch (x % 5) {
		case 0: /* flip a bit */
			if (len)
				buf[pos % len] ^= (unsigned char)(1u << ((x >> 40) % 8));
			break;
		case 1: /* delete a run */
			if (len && pos < len) {
				size_t n = 1 + (x >> 32) % 8;
				if (n > len - pos)
					n = len - pos;
				memmove(buf + pos, buf + pos + n, len - pos - n);
				len -= n;
			}
			break;
		case 2: /* insert a random byte */
			if (len < cap) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = (unsigned char)(x >> 48);
				len++;
			}
			break;
		case 3: { /* insert a token */
			const char *t = tokens[(x >> 16) % (sizeof tokens / sizeof tokens[0])];
			size_t n = strlen(t);
			if (len + n <= cap) {
				memmove(buf + pos + n, buf + pos, len - pos);
				memcpy(buf + pos, t, n);
				len += n;
			}
			break;
		}
		default: /* truncate */
			len = pos;
			break;
		}
	}
	return len;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = malloc(REPLAY_MAX);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, REPLAY_MAX, f);
	fclose(f);
	return buf;
}

static int run_file(const char *path, int mutations, rng_t *r, long *count)
{
	size_t len = 0;
	unsigned char *orig = read_all(path, &len);
	if (!orig) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	LLVMFuzzerTestOneInput(orig, len);
	(*count)++;
	unsigned char *buf = malloc(REPLAY_MAX);
	if (!buf) {
		free(orig);
		return -1;
	}
	for (int i = 0; i < mutations; i++) {
		memcpy(buf, orig, len);
		size_t n = mutate(r, buf, len, REPLAY_MAX);
		/* a private copy of exactly n bytes, so reads past the end are caught */
		unsigned char *exact = malloc(n ? n : 1);
		if (!exact)
			break;
		memcpy(exact, buf, n);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
		(*count)++;
	}
	free(buf);
	free(orig);
	return 0;
}

int main(int argc, char **argv)
{
	int mutations = 0;
	rng_t r = {0x9e3779b97f4a7c15ULL};
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	long count = 0;
	int bad = 0, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-m") && i + 1 < argc)
			mutations = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			r.state = strtoull(argv[++i], NULL, 0) | 1;
		else {
			fprintf(stderr, "usage: %s [-m MUTATIONS] [-s SEED] FILE_OR_DIR...\n", name);
			return 2;
		}
	}
	for (; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i], mutations, &r, &count) != 0;
			continue;
		}
		struct dirent **ents;
		int n = scandir(argv[i], &ents, NULL, alphasort); /* sorted: reproducible order */
		for (int k = 0; k < n; k++) {
			if (ents[k]->d_name[0] != '.') {
				char path[4096];
				snprintf(path, sizeof path, "%s/%s", argv[i], ents[k]->d_name);
				if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
					bad |= run_file(path, mutations, &r, &count) != 0;
			}
			free(ents[k]);
		}
		if (n >= 0)
			free(ents);
	}
	if (bad) {
		printf("FAIL fuzz %s: unreadable inputs\n", name);
		return 1;
	}
	printf("PASS fuzz %s: %ld inputs\n", name, count);
	return 0;
}
