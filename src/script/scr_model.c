/* scr_model.c - models and clusters in Lua: strata.model (the keys of a model file),
 * strata.layers with the dense/moe/mla block helpers (architectures the keys cannot
 * express), strata.cluster, strata.preset(s), and their userdata. A model or cluster
 * userdata holds a copy of the C struct, so it owns nothing and needs no __gc. */
#include "script/scr_int.h"

#include <stdlib.h>
#include <string.h>

/* ---------- userdata ---------- */

model_t *scr_new_model(lua_State *L)
{
	model_t *m = lua_newuserdatauv(L, sizeof *m, 0);
	memset(m, 0, sizeof *m);
	luaL_setmetatable(L, SCR_MODEL_T);
	return m;
}

cluster_t *scr_new_cluster(lua_State *L)
{
	cluster_t *c = lua_newuserdatauv(L, sizeof *c, 0);
	memset(c, 0, sizeof *c);
	luaL_setmetatable(L, SCR_CLUSTER_T);
	return c;
}

model_t *scr_check_model(lua_State *L, int idx)
{
	return luaL_checkudata(L, idx, SCR_MODEL_T);
}

cluster_t *scr_check_cluster(lua_State *L, int idx)
{
	return luaL_checkudata(L, idx, SCR_CLUSTER_T);
}

/* ---------- blocks: one layer shape in config keys ---------- */

/* besides the layout keys of a model file, a strata.layers table takes no blocks key: its
 * array part is the blocks */
static const char *const scr_blocks_key[] = {"blocks", NULL};
/* the keys a block may set for itself rather than take from the model */
static const char *const scr_width_keys[] = {"hidden_size", "hidden_act", NULL};

static int scr_in(const char *k, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(k, list[i]))
			return 1;
	return 0;
}

/* Push the config keys of layer kind k of m as a block table (the inverse of a helper). */
static void scr_push_block(lua_State *L, const model_t *m, int k, int count)
{
	const layer_kind *t = &m->kind[k];
	lua_createtable(L, 0, 16);
	lua_pushstring(L, t->attn == ATTN_MLA ? "mla" : t->experts > 0 ? "moe" : "dense");
	lua_setfield(L, -2, "block");
	lua_pushinteger(L, count);
	lua_setfield(L, -2, "layers");
	if (t->mlp != MLP_MODEL) {
		lua_pushstring(L, t->mlp == MLP_GATED ? "silu" : "gelu");
		lua_setfield(L, -2, "hidden_act");
	}
	struct { const char *k; int v; int when; } f[] = {
		{"hidden_size", t->hidden, t->hidden > 0},
		{"num_attention_heads", t->heads, 1},
		{"num_key_value_heads", t->kv_heads, t->attn != ATTN_MLA},
		{"head_dim", t->head_dim, 1},
		{"q_lora_rank", t->q_lora, t->attn == ATTN_MLA},
		{"kv_lora_rank", t->kv_lora, t->attn == ATTN_MLA},
		{"qk_nope_head_dim", t->qk_nope, t->attn == ATTN_MLA},
		{"qk_rope_head_dim", t->qk_rope, t->attn == ATTN_MLA},
		{"v_head_dim", t->v_head, t->attn == ATTN_MLA},
		{"sliding_window", t->window, t->window > 0},
		{"attention_chunk_size", t->chunk, t->chunk > 0},
		{"intermediate_size", t->ffn, t->experts == 0},
		{"n_routed_experts", t->experts, t->experts > 0},
		{"num_experts_per_tok", t->topk, t->experts > 0},
		{"moe_intermediate_size", t->expert_ffn, t->experts > 0},
		{"n_shared_experts", t->shared, t->experts > 0},
		{"image_tokens", t->enc_tokens, t->enc_tokens > 0},
		{"images_per_sample", t->enc_images, t->enc_tokens > 0},
		{"projector_intermediate_size", t->proj_ffn, t->proj_ffn > 0},
		{"projector_merge", t->proj_merge, t->proj_merge > 0},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		if (!f[i].when)
			continue;
		lua_pushinteger(L, f[i].v);
		lua_setfield(L, -2, f[i].k);
	}
	if (t->mtp) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "mtp");
	}
}

/* Helper: a block table tagged with its kind, keys checked at the call so a typo is
 * reported on the line that made it. */
static int scr_block(lua_State *L, const char *kind)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	char what[32];
	snprintf(what, sizeof what, "strata.%s", kind);
	/* the keys a block of this kind takes in a model file, checked in a fixed order (Lua
	 * seeds its string hash) so the same table always names the same key */
	scr_push_sorted_keys(L, 1);
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
		char known[600];
		if (lua_type(L, -1) == LUA_TSTRING && !plan_block_key_ok(kind, lua_tostring(L, -1), known, sizeof known))
			luaL_error(L, "%s: unknown key '%s' (known: %s)", what, lua_tostring(L, -1), known);
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
	scr_int_field(L, 1, "layers", what, 1, MODEL_MAX_LAYERS, 1);
	/* its own width, within the bound model_check applies */
	scr_int_field(L, 1, "hidden_size", what, 1, 1 << 20, 0);
	int at = lua_getfield(L, 1, "hidden_act");
	if (at != LUA_TNIL && at != LUA_TSTRING)
		luaL_error(L, "%s: hidden_act must be a string such as 'gelu' or 'silu' (got %s)", what, lua_typename(L, at));
	lua_pop(L, 1);
	lua_getfield(L, 1, "block");
	if (!lua_isnil(L, -1) && (lua_type(L, -1) != LUA_TSTRING || strcmp(lua_tostring(L, -1), kind)))
		luaL_error(L, "%s: block must be '%s' when given", what, kind);
	lua_pop(L, 1);
	/* a shallow copy, so the caller's table can be reused for the next block */
	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, -4);
	}
	lua_pushstring(L, kind);
	lua_setfield(L, -2, "block");
	return 1;
}

static int scr_dense(lua_State *L) { return scr_block(L, "dense"); }
static int scr_moe(lua_State *L) { return scr_block(L, "moe"); }
static int scr_mla(lua_State *L) { return scr_block(L, "mla"); }

/* ---------- strata.model ---------- */

static int scr_model(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	scr_push_text(L, 1, "strata.model", 0);
	char err[1024];
	model_t *m = scr_new_model(L);
	if (plan_model_from_text(m, lua_tostring(L, -2), "strata.model", err, sizeof err))
		return scr_raise_loader(L, "strata.model", err);
	return 1;
}

/* ---------- strata.layers ---------- */

/* Copy the string keys of table src into table dst (at the top), except those in skip. */
static void scr_copy_keys(lua_State *L, int src, const char *const *const *skip)
{
	lua_pushnil(L);
	while (lua_next(L, src)) {
		int drop = lua_type(L, -2) != LUA_TSTRING;
		for (int s = 0; !drop && skip[s]; s++)
			drop = scr_in(lua_tostring(L, -2), skip[s]);
		if (drop) {
			lua_pop(L, 1);
			continue;
		}
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, -4);
	}
}

/* Layer kind of block b (a table at index bi) under the model keys at ti: the keys are
 * merged into a one-layer model and run through the file loader, so defaults (kv heads,
 * head_dim, v_head_dim, top-k) and checks are those of a model file. With wide set, the
 * block's own width and MLP type are left out, so tmp gets the model-wide values. */
static void scr_block_kind(lua_State *L, int ti, int bi, int nb, int wide, model_t *tmp, layer_kind *out, int *mtp,
		int *count)
{
	char what[64];
	snprintf(what, sizeof what, "strata.layers: block %d", nb);
	if (lua_type(L, bi) != LUA_TTABLE)
		luaL_error(L, "%s is a %s (make blocks with strata.dense, strata.moe or strata.mla)", what,
				luaL_typename(L, bi));
	lua_getfield(L, bi, "block");
	const char *kind = lua_tostring(L, -1);
	if (!kind || (strcmp(kind, "dense") && strcmp(kind, "moe") && strcmp(kind, "mla")))
		luaL_error(L, "%s has no block kind (make it with strata.dense, strata.moe or strata.mla)", what);
	int is_mla = kind[1] == 'l', block_moe = kind[0] == 'm' && kind[1] == 'o';
	lua_pop(L, 1);
	if (!block_moe) {
		/* an MLA block is an MoE layer when it names its experts itself */
		for (int i = 0; !block_moe && i < 3; i++) {
			lua_getfield(L, bi, plan_keys_moe[i]);
			block_moe = !lua_isnil(L, -1);
			lua_pop(L, 1);
		}
		if (kind[0] == 'd')
			block_moe = 0;
	}
	*count = (int)scr_int_field(L, bi, "layers", what, 1, MODEL_MAX_LAYERS, 1);
	lua_getfield(L, bi, "mtp");
	*mtp = lua_toboolean(L, -1);
	lua_pop(L, 1);

	lua_newtable(L); /* merged keys */
	int merged = lua_gettop(L);
	static const char *const block_meta[] = {"block", "layers", "mtp", NULL};
	const char *const *skip_top[6] = {plan_keys_layout, scr_blocks_key, plan_keys_encoder, NULL, NULL, NULL};
	int ns = 3;
	if (!block_moe)
		skip_top[ns++] = plan_keys_moe;
	if (!is_mla)
		skip_top[ns++] = plan_keys_mla;
	scr_copy_keys(L, ti, skip_top);
	const char *const *skip_block[] = {block_meta, plan_keys_encoder, wide ? scr_width_keys : NULL, NULL};
	scr_copy_keys(L, bi, skip_block);
	lua_getfield(L, bi, "hidden_size");
	int own_width = !wide && !lua_isnil(L, -1);
	lua_getfield(L, bi, "hidden_act");
	int own_act = !wide && !lua_isnil(L, -1);
	lua_getfield(L, merged, "head_dim");
	int implied_hd = lua_isnil(L, -1);
	lua_pop(L, 3);
	lua_pushinteger(L, 1);
	lua_setfield(L, merged, "num_hidden_layers");
	if (!block_moe) {
		for (int i = 0; i < 3; i++) {
			lua_pushinteger(L, 0);
			lua_setfield(L, merged, plan_keys_moe[i]);
		}
	} else {
		lua_getfield(L, merged, "num_experts");
		lua_getfield(L, merged, "num_local_experts");
		lua_getfield(L, merged, "n_routed_experts");
		int none = lua_isnil(L, -1) && lua_isnil(L, -2) && lua_isnil(L, -3);
		lua_pop(L, 3);
		if (none)
			luaL_error(L, "%s: an MoE block needs n_routed_experts", what);
	}
	if (!is_mla) {
		lua_pushinteger(L, 0);
		lua_setfield(L, merged, "kv_lora_rank");
	} else {
		lua_getfield(L, merged, "kv_lora_rank");
		if (lua_isnil(L, -1))
			luaL_error(L, "%s: an MLA block needs kv_lora_rank", what);
		lua_pop(L, 1);
	}
	scr_push_text(L, merged, what, 0);
	char err[1024];
	if (plan_model_from_text(tmp, lua_tostring(L, -1), what, err, sizeof err))
		scr_raise_loader(L, what, err);
	lua_pop(L, 2);
	*out = tmp->kind[tmp->run[0].kind];
	if (block_moe && out->experts == 0)
		luaL_error(L, "%s: an MoE block needs n_routed_experts > 0", what);
	/* a width of its own implies the head size unless head_dim is given */
	if (own_width && implied_hd && tmp->hidden % out->heads)
		luaL_error(L, "%s: hidden_size %d is not divisible by num_attention_heads %d (give head_dim)", what,
				tmp->hidden, out->heads);
	out->hidden = own_width ? tmp->hidden : 0;
	out->mlp = own_act ? (tmp->gated ? MLP_GATED : MLP_PLAIN) : MLP_MODEL;
	out->mtp = *mtp != 0;
	/* a vision encoder's keys (model.h), read here: they are no model file key */
	out->enc_tokens = (int)scr_int_field(L, bi, "image_tokens", what, 1, 1 << 20, 0);
	out->enc_images = (int)scr_int_field(L, bi, "images_per_sample", what, 1, 4096, out->enc_tokens > 0);
	out->proj_ffn = (int)scr_int_field(L, bi, "projector_intermediate_size", what, 1, 1 << 24, 0);
	out->proj_merge = (int)scr_int_field(L, bi, "projector_merge", what, 1, 64, 0);
}

static int scr_layers(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	for (int l = 0; l < 2; l++)
		for (int i = 0; (l ? scr_blocks_key : plan_keys_layout)[i]; i++) {
			const char *key = (l ? scr_blocks_key : plan_keys_layout)[i];
			lua_getfield(L, 1, key);
			if (!lua_isnil(L, -1))
				luaL_error(L, "strata.layers: '%s' does not apply here: the blocks give the layers (mtp = true "
						"marks MTP modules)", key);
			lua_pop(L, 1);
		}
	lua_Unsigned nb = lua_rawlen(L, 1);
	if (nb == 0)
		luaL_error(L, "strata.layers: no blocks (list strata.dense{...}, strata.moe{...} or strata.mla{...} "
				"after the model keys)");
	if (nb > MODEL_MAX_LAYERS)
		luaL_error(L, "strata.layers: more than %d blocks", MODEL_MAX_LAYERS);
	/* scratch models as userdata: freed by the collector whatever raises below */
	model_t *tmp = lua_newuserdatauv(L, sizeof *tmp, 0);
	model_t *m = scr_new_model(L);
	int mi = lua_gettop(L);
	int total = 0, seen_mtp = 0;
	for (lua_Unsigned b = 1; b <= nb; b++) {
		lua_rawgeti(L, 1, (lua_Integer)b);
		layer_kind kind;
		int mtp, count;
		scr_block_kind(L, 1, lua_gettop(L), (int)b, 0, tmp, &kind, &mtp, &count);
		if (b == 1 && (kind.hidden > 0 || kind.mlp != MLP_MODEL)) {
			/* the first block has its own width or MLP type: read the model's without them */
			layer_kind ignored;
			int m2, c2;
			scr_block_kind(L, 1, lua_gettop(L), 1, 1, tmp, &ignored, &m2, &c2);
		}
		lua_pop(L, 1);
		if (b == 1) {
			/* model-wide fields, as the loader read them from the merged keys */
			memcpy(m->name, tmp->name, sizeof m->name);
			m->hidden = tmp->hidden;
			m->vocab = tmp->vocab;
			m->gated = tmp->gated;
			m->tied = tmp->tied;
			m->biases = tmp->biases;
			m->qkv_bias = tmp->qkv_bias;
			m->hidden_dropout = tmp->hidden_dropout;
			m->attention_dropout = tmp->attention_dropout;
			m->arch = tmp->arch;
		}
		if (seen_mtp && !mtp)
			luaL_error(L, "strata.layers: block %d: MTP blocks (mtp = true) must come last", (int)b);
		seen_mtp |= mtp;
		int k;
		for (k = 0; k < m->nkinds; k++)
			if (model_kind_equal(&m->kind[k], &kind))
				break;
		if (k == m->nkinds) {
			if (m->nkinds >= MODEL_MAX_KINDS)
				luaL_error(L, "strata.layers: block %d: more than %d distinct layer shapes (the core's "
						"MODEL_MAX_KINDS); reuse shapes or merge similar ones", (int)b, MODEL_MAX_KINDS);
			m->kind[m->nkinds++] = kind;
		}
		total += count;
		if (total > MODEL_MAX_LAYERS)
			luaL_error(L, "strata.layers: more than %d layers", MODEL_MAX_LAYERS);
		if (model_append(m, k, count))
			luaL_error(L, "strata.layers: block %d: more than %d runs of alternating layer shapes (the "
					"core's MODEL_MAX_RUNS)", (int)b, MODEL_MAX_RUNS);
	}
	char why[256];
	if (model_check(m, why, sizeof why))
		luaL_error(L, "strata.layers: %s", why);
	lua_pushvalue(L, mi);
	return 1;
}

/* ---------- presets ---------- */

static int scr_preset_name_ok(const char *s)
{
	return s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) < 200;
}

static int scr_preset(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const char *kind = luaL_optstring(L, 2, NULL);
	if (kind && strcmp(kind, "model") && strcmp(kind, "cluster"))
		return luaL_error(L, "strata.preset: kind must be 'model' or 'cluster' (got '%s')", kind);
	if (!scr_preset_name_ok(name))
		return luaL_error(L, "strata.preset: '%s' is not a preset name (files cannot be read from the sandbox; "
				"build the model with strata.model{...})", name);
	const paths_t *paths = scr_ctx_of(L)->env->paths;
	char sub[300], path[1100], err[1024];
	int want_model = !kind || kind[0] == 'm', want_cluster = !kind || kind[0] == 'c';
	snprintf(sub, sizeof sub, "presets/models/%s.yaml", name);
	if (want_model && paths && !paths_find(paths, sub, path, sizeof path)) {
		model_t *m = scr_new_model(L);
		if (plan_load_model(m, path, paths, err, sizeof err))
			return luaL_error(L, "strata.preset: %s", err);
		return 1;
	}
	snprintf(sub, sizeof sub, "presets/clusters/%s.yaml", name);
	if (want_cluster && paths && !paths_find(paths, sub, path, sizeof path)) {
		cluster_t *c = scr_new_cluster(L);
		if (plan_load_cluster(c, path, paths, err, sizeof err))
			return luaL_error(L, "strata.preset: %s", err);
		return 1;
	}
	return luaL_error(L, "strata.preset: no %s preset named '%s' (strata.presets() lists them)",
			kind ? kind : "model or cluster", name);
}

typedef struct {
	lua_State *L;
	lua_Integer n;
} scr_list_arg;

static void scr_list_visit(const char *name, const char *path, void *arg)
{
	scr_list_arg *a = arg;
	(void)path;
	lua_pushstring(a->L, name);
	lua_rawseti(a->L, -2, ++a->n);
}

/* strata.presets() -> {models = {...}, clusters = {...}}, names sorted. */
static int scr_presets(lua_State *L)
{
	const paths_t *paths = scr_ctx_of(L)->env->paths;
	lua_createtable(L, 0, 2);
	static const char *const kinds[][2] = {{"models", "presets/models"}, {"clusters", "presets/clusters"}};
	for (int k = 0; k < 2; k++) {
		lua_newtable(L);
		scr_list_arg a = {L, 0};
		if (paths)
			paths_each(paths, kinds[k][1], scr_list_visit, &a);
		/* as a set, so the fixed key order sorts the names */
		lua_newtable(L);
		for (lua_Integer i = 1; i <= a.n; i++) {
			lua_rawgeti(L, -2, i);
			lua_pushboolean(L, 1);
			lua_rawset(L, -3);
		}
		scr_push_sorted_keys(L, -1);
		lua_setfield(L, -4, kinds[k][0]);
		lua_pop(L, 2);
	}
	return 1;
}

/* ---------- strata.cluster ---------- */

static int scr_cluster(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	scr_push_text(L, 1, "strata.cluster", 0);
	char err[1024];
	cluster_t *c = scr_new_cluster(L);
	if (plan_cluster_from_text(c, lua_tostring(L, -2), "strata.cluster", scr_ctx_of(L)->env->paths, err, sizeof err))
		return scr_raise_loader(L, "strata.cluster", err);
	return 1;
}

/* The value at idx as an object of type tname, copied into out: the object itself, a
 * preset name (through strata.preset with kind) or a table of keys (through ctor). */
static void scr_get_obj(lua_State *L, int idx, const char *kind, lua_CFunction ctor, const char *tname,
		void *out, size_t size, char *ref, size_t reflen)
{
	idx = lua_absindex(L, idx);
	int t = lua_type(L, idx);
	if (t == LUA_TSTRING || t == LUA_TTABLE) {
		lua_pushcfunction(L, t == LUA_TSTRING ? scr_preset : ctor);
		lua_pushvalue(L, idx);
		lua_pushstring(L, kind);
		lua_call(L, 2, 1); /* ctor ignores the kind */
		snprintf(ref, reflen, "%s", t == LUA_TSTRING ? lua_tostring(L, idx) : "(inline)");
	} else {
		lua_pushvalue(L, idx);
		if (!luaL_testudata(L, -1, tname))
			luaL_error(L, "%s must be a %s object, a preset name or a table of its keys (got %s)", kind, kind,
					luaL_typename(L, idx));
		snprintf(ref, reflen, "(inline)");
	}
	memcpy(out, lua_touserdata(L, -1), size);
	lua_pop(L, 1);
}

void scr_get_model(lua_State *L, int idx, model_t *out, char *ref, size_t reflen)
{
	scr_get_obj(L, idx, "model", scr_model, SCR_MODEL_T, out, sizeof *out, ref, reflen);
}

void scr_get_cluster(lua_State *L, int idx, cluster_t *out, char *ref, size_t reflen)
{
	scr_get_obj(L, idx, "cluster", scr_cluster, SCR_CLUSTER_T, out, sizeof *out, ref, reflen);
}

/* ---------- model and cluster fields ---------- */

static int scr_model_blocks(lua_State *L)
{
	const model_t *m = scr_check_model(L, 1);
	lua_createtable(L, m->nruns, 0);
	for (int r = 0; r < m->nruns; r++) {
		scr_push_block(L, m, m->run[r].kind, m->run[r].count);
		lua_rawseti(L, -2, r + 1);
	}
	return 1;
}

static int scr_model_index(lua_State *L)
{
	const model_t *m = scr_check_model(L, 1);
	const char *k = luaL_checkstring(L, 2);
	if (!strcmp(k, "name"))
		lua_pushstring(L, m->name);
	else if (!strcmp(k, "layers"))
		lua_pushinteger(L, m->layers);
	else if (!strcmp(k, "mtp_layers"))
		lua_pushinteger(L, m->mtp_layers);
	else if (!strcmp(k, "hidden_size"))
		lua_pushinteger(L, m->hidden);
	else if (!strcmp(k, "vocab_size"))
		lua_pushinteger(L, m->vocab);
	else if (!strcmp(k, "kinds"))
		lua_pushinteger(L, m->nkinds);
	else if (!strcmp(k, "params_b"))
		lua_pushnumber(L, model_total_params(m, false) / 1e9);
	else if (!strcmp(k, "active_params_b"))
		lua_pushnumber(L, model_active_params(m) / 1e9);
	else if (!strcmp(k, "gated"))
		lua_pushboolean(L, m->gated);
	else if (!strcmp(k, "tie_word_embeddings"))
		lua_pushboolean(L, m->tied);
	else if (!strcmp(k, "blocks"))
		lua_pushcfunction(L, scr_model_blocks);
	else
		lua_pushnil(L);
	return 1;
}

static int scr_model_tostring(lua_State *L)
{
	const model_t *m = scr_check_model(L, 1);
	char b[64];
	snprintf(b, sizeof b, "%.2f", model_total_params(m, false) / 1e9);
	lua_pushfstring(L, "model %s: %d layers, %s B parameters", m->name, m->layers, b);
	return 1;
}

static int scr_cluster_index(lua_State *L)
{
	const cluster_t *c = scr_check_cluster(L, 1);
	const char *k = luaL_checkstring(L, 2);
	if (!strcmp(k, "name"))
		lua_pushstring(L, c->name);
	else if (!strcmp(k, "device"))
		lua_pushstring(L, c->device);
	else if (!strcmp(k, "memory_gib"))
		lua_pushnumber(L, c->mem_gib);
	else if (!strcmp(k, "node_devices"))
		lua_pushinteger(L, c->node_devices);
	else if (!strcmp(k, "hbm_gbps"))
		lua_pushnumber(L, c->hbm_gbps);
	else if (!strcmp(k, "sms"))
		lua_pushinteger(L, c->sms);
	else if (!strcmp(k, "node_gbps"))
		lua_pushnumber(L, c->node_gbps);
	else if (!strcmp(k, "net_gbps"))
		lua_pushnumber(L, c->net_gbps);
	else if (!strcmp(k, "domain_devices")) /* the scale-up domain (the node when not given) */
		lua_pushinteger(L, cluster_domain_devices(c));
	else if (!strcmp(k, "domain_gbps"))
		lua_pushnumber(L, cluster_domain_gbps(c));
	else if (!strcmp(k, "uncalibrated_family")) { /* nil for a calibrated family */
		if (c->eff_from[0])
			lua_pushstring(L, c->eff_from);
		else
			lua_pushnil(L);
	} else if (!strcmp(k, "peak_tflops")) {
		lua_createtable(L, 0, 3);
		for (int p = 0; p < PREC_COUNT; p++) {
			lua_pushnumber(L, c->peak_tflops[p]);
			lua_setfield(L, -2, strat_precision_name(p));
		}
	} else if (!strcmp(k, "budget_gib"))
		lua_pushnumber(L, eval_default_budget_gib(c));
	else
		lua_pushnil(L);
	return 1;
}

static int scr_cluster_tostring(lua_State *L)
{
	const cluster_t *c = scr_check_cluster(L, 1);
	lua_pushfstring(L, "cluster %s: %d x %s per node", c->name, c->node_devices, c->device);
	return 1;
}

void scr_open_model(lua_State *L)
{
	static const luaL_Reg model_mt[] = {
		{"__index", scr_model_index}, {"__tostring", scr_model_tostring}, {NULL, NULL},
	};
	static const luaL_Reg cluster_mt[] = {
		{"__index", scr_cluster_index}, {"__tostring", scr_cluster_tostring}, {NULL, NULL},
	};
	luaL_newmetatable(L, SCR_MODEL_T);   /* strata mt */
	luaL_setfuncs(L, model_mt, 0);
	lua_pushliteral(L, SCR_MODEL_T);
	lua_setfield(L, -2, "__metatable"); /* getmetatable() shows the name, not the table */
	lua_pop(L, 1);
	luaL_newmetatable(L, SCR_CLUSTER_T);
	luaL_setfuncs(L, cluster_mt, 0);
	lua_pushliteral(L, SCR_CLUSTER_T);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
	static const luaL_Reg fns[] = {
		{"model", scr_model}, {"layers", scr_layers}, {"dense", scr_dense}, {"moe", scr_moe}, {"mla", scr_mla},
		{"cluster", scr_cluster}, {"preset", scr_preset}, {"presets", scr_presets}, {NULL, NULL},
	};
	luaL_setfuncs(L, fns, 0);            /* strata */
}
