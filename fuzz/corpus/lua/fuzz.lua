-- fuzz.lua: every strata.* function with wrong types, nil, huge and NaN numbers, deep and
-- cyclic tables, in every argument and every known key. Nothing may crash the process:
-- each call either returns or raises a Lua error (caught here). Prints one PASS line.

local deep = {}
for _ = 1, 300 do deep = {deep, a = deep} end
local cyc = {}
cyc.c, cyc[1], cyc.strategy, cyc.model = cyc, cyc, cyc, cyc
local llama = strata.preset("llama3-8b")
local h100 = strata.preset("dgx-h100")
local plan = strata.plan{model = llama, cluster = h100, devices = 8, strategy = {global_batch = 16}}

local weird = {n = 0}
local function add(v) weird.n = weird.n + 1; weird[weird.n] = v end
for _, v in ipairs{true, false, 0, -1, 1, 7, 2^53, math.maxinteger, math.mininteger, 1e308, -1e308,
                   1 / 0, -1 / 0, 0.5, -0.0, "", "x", "8", "nan", "llama3-8b", "dgx-h100", "../../etc/passwd",
                   "/etc/passwd", "a\0b", "\255\254", string.rep("x", 100000), {}, {1, 2, 3}, {{}}, deep, cyc,
                   function() end, function() error("inner") end, llama, h100, plan} do
  add(v)
end
add(nil)
add(0 / 0)

local calls, errors = 0, 0
local function try(f, ...)
  calls = calls + 1
  local ok, err = pcall(f, ...)
  if not ok then
    errors = errors + 1
    if type(err) ~= "string" then error("an error that is not a string: " .. type(err)) end
  end
end

local fns = {strata.model, strata.layers, strata.dense, strata.moe, strata.mla, strata.cluster,
             strata.preset, strata.plan, strata.eval, strata.ilp, strata.presets}
for _, f in ipairs(fns) do
  for i = 1, weird.n do
    try(f, weird[i])
    try(f, weird[i], weird[(i % weird.n) + 1])
  end
end
for i = 1, weird.n do
  try(strata.eval, plan, weird[i])
  try(plan.with, plan, weird[i])
  try(plan.with, weird[i], {})
  try(llama.blocks, weird[i])
  try(function() return llama[weird[i]] end)
  try(function() return plan[weird[i]] end)
  try(function() return h100[weird[i]] end)
  try(strata.search, plan, {exhaustive = true, top = 2, filter = weird[i]})
  try(strata.search, plan, {exhaustive = true, top = 2, score = weird[i]})
  try(strata.search, plan, {enumerate = weird[i], top = 2})
  try(strata.search, plan, {enumerate = function() return weird[i] end, top = 2})
  try(strata.search, plan, {enumerate = function() return {weird[i]} end, top = 2})
  try(strata.search, plan, {exhaustive = true, top = weird[i]})
  try(strata.search, weird[i], {exhaustive = true})
  try(strata.ilp, plan, {time_limit_ms = weird[i]})
end

-- every known key of every table-taking function, set to every weird value
local model_keys = {"name", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
  "num_key_value_heads", "vocab_size", "hidden_act", "head_dim", "tie_word_embeddings", "n_routed_experts",
  "num_local_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
  "first_k_dense_replace", "moe_layer_freq", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
  "qk_rope_head_dim", "v_head_dim", "num_nextn_predict_layers", "hidden_dropout", "attention_dropout"}
local base_model = {hidden_size = 1024, intermediate_size = 4096, num_hidden_layers = 4,
  num_attention_heads = 8, vocab_size = 32000}
local strategy_keys = {"dp", "tp", "pp", "vpp", "cp", "ep", "etp", "zero", "micro_batch", "global_batch",
  "seq_length", "sp", "recompute", "schedule", "precision", "flash_attention", "cp_kind", "tp_comm_overlap",
  "vocab_parallel", "recompute_layers", "stage_layers", "mbs", "gbs", "seq"}
local function with(t, k, v)
  local c = {}
  for kk, vv in pairs(t) do c[kk] = vv end
  c[k] = v
  return c
end
for i = 1, weird.n do
  local v = weird[i]
  for _, k in ipairs(model_keys) do
    try(strata.model, with(base_model, k, v))
    try(strata.layers, with({hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
      strata.dense{intermediate_size = 4096}}, k, v))
    try(function() return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
      strata.dense(with({intermediate_size = 4096}, k, v))} end)
    try(function() return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
      strata.moe(with({n_routed_experts = 8}, k, v))} end)
    try(function() return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
      strata.mla(with({kv_lora_rank = 64, qk_nope_head_dim = 64}, k, v))} end)
  end
  for _, k in ipairs{"layers", "mtp", "block"} do
    try(strata.dense, with({intermediate_size = 4096}, k, v))
    try(strata.layers, {hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
      with({block = "dense", intermediate_size = 4096}, k, v)})
  end
  for _, k in ipairs(strategy_keys) do
    try(strata.eval, plan, {[k] = v})
    try(strata.plan, {model = llama, cluster = h100, devices = 8, strategy = {[k] = v}})
  end
  for _, k in ipairs{"model", "cluster", "devices", "strategy", "pins", "budget_gib", "id"} do
    try(strata.plan, with({model = llama, cluster = h100, devices = 8}, k, v))
    try(strata.eval, plan, {[k] = v})
  end
  for _, k in ipairs{"name", "device", "node", "network", "efficiency"} do
    try(strata.cluster, with({device = {name = "X", memory_gib = 80, peak_tflops = {bf16 = 100}, hbm_gbps = 1000},
      node = {devices = 8, link_gbps = 100}, network = {link_gbps = 10, latency_us = 5}}, k, v))
  end
  try(strata.plan, {model = llama, cluster = h100, devices = 8, pins = {v}})
end
-- a layer stack larger than the core allows, and more distinct shapes than it can hold
try(function()
  local b = {}
  for l = 1, 600 do b[l] = strata.dense{intermediate_size = 1000 + (l % 2) * 8} end
  return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8, table.unpack(b)}
end)
try(function()
  local b = {}
  for l = 1, 9 do b[l] = strata.dense{intermediate_size = 1000 + l * 8} end
  return strata.layers{hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8, table.unpack(b)}
end)
try(strata.layers, {hidden_size = 1024, vocab_size = 32000, num_attention_heads = 8,
  strata.dense{layers = 4096, intermediate_size = 10}, strata.dense{layers = 1, intermediate_size = 11}})
print(string.format("PASS fuzz: %d API calls with bad arguments, %d raised errors, none crashed", calls, errors))
