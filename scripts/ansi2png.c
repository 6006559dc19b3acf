/* ansi2png.c - render a terminal capture (tmux capture-pane -p -e: text with SGR colour
 * escapes) to a PNG, for the screenshots in screenshots/. Used by scripts/screenshots.sh,
 * which builds it with FreeType and zlib; not part of strata itself.
 *
 *   ansi2png IN.ansi OUT.png COLS ROWS [FONT.ttf [BOLD.ttf]]
 *
 * Each character is one cell. Block elements (full block and the three shades) are
 * drawn as filled cells so bars join up; everything else comes from the font. */
#include <ft2build.h>
#include FT_FREETYPE_H
#include <zlib.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PX 16              /* font size in pixels */
#define DEF_FG 0xd0d0d0
#define DEF_BG 0x1c1c1c

typedef struct {
	uint32_t ch;
	int fg, bg;            /* palette index, or -1 for the default */
	int bold, dim, ul, rev;
} cell;

static uint32_t palette(int c)
{
	static const uint32_t sys[16] = {
		0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
		0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
	};
	static const int level[6] = {0, 95, 135, 175, 215, 255};
	if (c < 16)
		return sys[c];
	if (c < 232) {
		c -= 16;
		return (uint32_t)(level[c / 36] << 16 | level[c / 6 % 6] << 8 | level[c % 6]);
	}
	int g = 8 + 10 * (c - 232);
	return (uint32_t)(g << 16 | g << 8 | g);
}

/* Parse the capture into a cols x rows grid. */
static void parse(FILE *f, cell *grid, int cols, int rows)
{
	cell cur = {' ', -1, -1, 0, 0, 0, 0};
	for (int i = 0; i < cols * rows; i++)
		grid[i] = cur;
	int x = 0, y = 0, c;
	while ((c = fgetc(f)) != EOF && y < rows) {
		if (c == '\n') {
			x = 0;
			y++;
			continue;
		}
		if (c == 0x1b) {
			if (fgetc(f) != '[')
				continue;
			int p[32], np = 0, v = 0, have = 0;
			while ((c = fgetc(f)) != EOF && ((c >= '0' && c <= '9') || c == ';')) {
				if (c == ';') {
					if (np < 32)
						p[np++] = have ? v : 0;
					v = have = 0;
				} else {
					v = v * 10 + c - '0';
					have = 1;
				}
			}
			if (np < 32)
				p[np++] = have ? v : 0;
			if (c != 'm')
				continue;
			for (int i = 0; i < np; i++) {
				int a = p[i];
				if (a == 0)
					cur = (cell){' ', -1, -1, 0, 0, 0, 0};
				else if (a == 1)
					cur.bold = 1;
				else if (a == 2)
					cur.dim = 1;
				else if (a == 4)
					cur.ul = 1;
				else if (a == 7)
					cur.rev = 1;
				else if (a == 22)
					cur.bold = cur.dim = 0;
				else if (a == 24)
					cur.ul = 0;
				else if (a == 27)
					cur.rev = 0;
				else if (a >= 30 && a <= 37)
					cur.fg = a - 30;
				else if (a >= 90 && a <= 97)
					cur.fg = a - 90 + 8;
				else if (a == 39)
					cur.fg = -1;
				else if (a >= 40 && a <= 47)
					cur.bg = a - 40;
				else if (a >= 100 && a <= 107)
					cur.bg = a - 100 + 8;
				else if (a == 49)
					cur.bg = -1;
				else if ((a == 38 || a == 48) && i + 2 < np && p[i + 1] == 5) {
					if (a == 38)
						cur.fg = p[i + 2];
					else
						cur.bg = p[i + 2];
					i += 2;
				}
			}
			continue;
		}
		/* UTF-8 */
		uint32_t ch = (uint32_t)c;
		int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		if (more)
			ch &= more == 3 ? 0x07 : more == 2 ? 0x0f : 0x1f;
		for (int i = 0; i < more; i++)
			ch = ch << 6 | ((uint32_t)fgetc(f) & 0x3f);
		if (x < cols) {
			cell *g = &grid[y * cols + x];
			*g = cur;
			g->ch = ch;
		}
		x++;
	}
}

static void fill(uint8_t *img, int w, int x0, int y0, int cw, int ch, uint32_t rgb)
{
	for (int y = y0; y < y0 + ch; y++)
		for (int x = x0; x < x0 + cw; x++) {
			uint8_t *p = img + 3 * ((size_t)y * w + x);
			p[0] = rgb >> 16;
			p[1] = rgb >> 8 & 255;
			p[2] = rgb & 255;
		}
}

static uint32_t mix(uint32_t a, uint32_t b, double t)
{
	uint32_t out = 0;
	for (int s = 16; s >= 0; s -= 8) {
		double v = ((a >> s) & 255) * (1 - t) + ((b >> s) & 255) * t;
		out |= (uint32_t)(v + 0.5) << s;
	}
	return out;
}

static void put32(FILE *f, uint32_t v)
{
	uint8_t b[4] = {v >> 24, v >> 16 & 255, v >> 8 & 255, v & 255};
	fwrite(b, 1, 4, f);
}

static void chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
	put32(f, len);
	fwrite(type, 1, 4, f);
	if (len)
		fwrite(data, 1, len, f);
	uLong crc = crc32(0, (const Bytef *)type, 4);
	if (len)
		crc = crc32(crc, data, len);
	put32(f, (uint32_t)crc);
}

static int write_png(const char *path, const uint8_t *img, int w, int h)
{
	size_t raw_len = (size_t)h * (1 + 3 * (size_t)w);
	uint8_t *raw = malloc(raw_len);
	uLongf zlen = compressBound(raw_len);
	uint8_t *z = malloc(zlen);
	FILE *f = fopen(path, "wb");
	if (!raw || !z || !f) {
		free(raw);
		free(z);
		if (f)
			fclose(f);
		return -1;
	}
	for (int y = 0; y < h; y++) {
		raw[(size_t)y * (1 + 3 * w)] = 0; /* filter: none */
		memcpy(raw + (size_t)y * (1 + 3 * w) + 1, img + (size_t)y * 3 * w, 3 * (size_t)w);
	}
	compress2(z, &zlen, raw, raw_len, 9);
	static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
	fwrite(sig, 1, 8, f);
	uint8_t ihdr[13] = {w >> 24, w >> 16 & 255, w >> 8 & 255, w & 255, h >> 24, h >> 16 & 255, h >> 8 & 255,
		h & 255, 8, 2, 0, 0, 0};
	chunk(f, "IHDR", ihdr, 13);
	chunk(f, "IDAT", z, (uint32_t)zlen);
	chunk(f, "IEND", NULL, 0);
	free(raw);
	free(z);
	return fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: ansi2png IN.ansi OUT.png COLS ROWS [FONT.ttf [BOLD.ttf]]\n");
		return 2;
	}
	int cols = atoi(argv[3]), rows = atoi(argv[4]);
	const char *font = argc > 5 ? argv[5] : "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
	const char *bold = argc > 6 ? argv[6] : "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf";
	FILE *in = fopen(argv[1], "rb");
	if (!in || cols <= 0 || rows <= 0) {
		fprintf(stderr, "ansi2png: cannot read %s\n", argv[1]);
		return 2;
	}
	cell *grid = malloc(sizeof *grid * (size_t)cols * rows);
	parse(in, grid, cols, rows);
	fclose(in);
	FT_Library ft;
	FT_Face face[2];
	if (FT_Init_FreeType(&ft) || FT_New_Face(ft, font, 0, &face[0]) || FT_New_Face(ft, bold, 0, &face[1])) {
		fprintf(stderr, "ansi2png: cannot load the fonts %s, %s\n", font, bold);
		return 2;
	}
	FT_Set_Pixel_Sizes(face[0], 0, PX);
	FT_Set_Pixel_Sizes(face[1], 0, PX);
	FT_Load_Char(face[0], 'M', FT_LOAD_DEFAULT);
	int cw = (int)(face[0]->glyph->advance.x >> 6);
	int asc = (int)(face[0]->size->metrics.ascender >> 6), desc = (int)(-face[0]->size->metrics.descender >> 6);
	int chh = asc + desc + 1;
	int pad = 8, W = cols * cw + 2 * pad, H = rows * chh + 2 * pad;
	uint8_t *img = malloc((size_t)W * H * 3);
	fill(img, W, 0, 0, W, H, DEF_BG);
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < cols; x++) {
			cell *c = &grid[y * cols + x];
			uint32_t fg = c->fg < 0 ? DEF_FG : palette(c->fg), bg = c->bg < 0 ? DEF_BG : palette(c->bg);
			if (c->bold && c->fg >= 0 && c->fg < 8)
				fg = palette(c->fg + 8);
			if (c->rev) {
				uint32_t t = fg;
				fg = bg;
				bg = t;
			}
			if (c->dim)
				fg = mix(fg, bg, 0.5);
			int px = pad + x * cw, py = pad + y * chh;
			fill(img, W, px, py, cw, chh, bg);
			/* blocks and shades as cell fills, so bars have no gaps */
			double shade = c->ch == 0x2588 ? 1 : c->ch == 0x2593 ? 0.75 : c->ch == 0x2592 ? 0.5 :
				c->ch == 0x2591 ? 0.25 : 0;
			if (shade > 0) {
				fill(img, W, px, py, cw, chh, mix(bg, fg, shade));
				continue;
			}
			if (c->ch != ' ') {
				FT_Face fc = face[c->bold ? 1 : 0];
				if (!FT_Load_Char(fc, c->ch, FT_LOAD_RENDER)) {
					FT_GlyphSlot g = fc->glyph;
					for (unsigned r = 0; r < g->bitmap.rows; r++)
						for (unsigned q = 0; q < g->bitmap.width; q++) {
							int ix = px + g->bitmap_left + (int)q, iy = py + asc - g->bitmap_top + (int)r;
							if (ix < 0 || iy < 0 || ix >= W || iy >= H)
								continue;
							double a = g->bitmap.buffer[r * g->bitmap.pitch + q] / 255.0;
							uint8_t *p = img + 3 * ((size_t)iy * W + ix);
							uint32_t under = (uint32_t)(p[0] << 16 | p[1] << 8 | p[2]);
							uint32_t o = mix(under, fg, a);
							p[0] = o >> 16;
							p[1] = o >> 8 & 255;
							p[2] = o & 255;
						}
				}
			}
			if (c->ul)
				fill(img, W, px, py + asc + 2, cw, 1, fg);
		}
	int rc = write_png(argv[2], img, W, H);
	free(img);
	free(grid);
	FT_Done_Face(face[0]);
	FT_Done_Face(face[1]);
	FT_Done_FreeType(ft);
	if (rc) {
		fprintf(stderr, "ansi2png: cannot write %s\n", argv[2]);
		return 1;
	}
	return 0;
}
