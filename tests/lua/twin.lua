-- twin.lua: models built in Lua give bit-identical evaluations to their YAML presets.
-- Prints "PASS ..." / "FAIL ..." lines (tests/cli/lua.sh passes them on).

-- first difference between two values, as "path: a vs b", or nil
local function diff(a, b, path)
  if type(a) ~= type(b) then return path .. ": " .. type(a) .. " vs " .. type(b) end
  if type(a) ~= "table" then
    if a ~= b and not (a ~= a and b ~= b) then
      if type(a) == "number" then return string.format("%s: %.17g vs %.17g", path, a, b) end
      return string.format("%s: %s vs %s", path, tostring(a), tostring(b))
    end
    return nil
  end
  for k, v in pairs(a) do
    local d = diff(v, b[k], path .. "." .. tostring(k))
    if d then return d end
  end
  for k, v in pairs(b) do
    if a[k] == nil then return path .. "." .. tostring(k) .. ": missing on the left" end
  end
  return nil
end

local function count(t)
  local n = 0
  for _, v in pairs(t) do n = n + (type(v) == "table" and count(v) or 1) end
  return n
end

local function twin(name, preset, lua_model, cluster, devices, strategies)
  local p = strata.plan{model = preset, cluster = cluster, devices = devices}
  for i, s in ipairs(strategies) do
    local a = strata.eval(p, s)
    local b = strata.eval(p:with{model = lua_model}, s)
    local d = diff(a, b, "result")
    local label = string.format("twin %s, strategy %d: bit-identical (%d values)", name, i, count(a))
    if d then print("FAIL " .. label .. ": " .. d)
    elseif not a.valid then print("FAIL " .. label .. ": strategy invalid: " .. a.error)
    else print("PASS " .. label) end
  end
end

local dense_strats = {
  {tp = 8, pp = 1, global_batch = 512, seq_length = 8192, recompute = "selective"},
  {tp = 4, pp = 4, vpp = 2, schedule = "interleaved", global_batch = 512, zero = 3, recompute = "full"},
  {tp = 2, pp = 8, cp = 2, global_batch = 256, seq_length = 16384, zero = 2, recompute = "none",
   recompute_layers = {["0:4"] = "full"}},
}

twin("llama3-8b strata.model", "llama3-8b",
  strata.model{name = "Llama-3-8B", hidden_size = 4096, intermediate_size = 14336, num_hidden_layers = 32,
    num_attention_heads = 32, num_key_value_heads = 8, vocab_size = 128256, hidden_act = "silu",
    tie_word_embeddings = false, max_position_embeddings = 8192},
  "dgx-h100", 128, dense_strats)

twin("llama3-8b strata.layers", "llama3-8b",
  strata.layers{name = "Llama-3-8B", hidden_size = 4096, vocab_size = 128256, hidden_act = "silu",
    tie_word_embeddings = false, num_attention_heads = 32, num_key_value_heads = 8,
    strata.dense{layers = 10, intermediate_size = 14336},
    strata.dense{layers = 22, intermediate_size = 14336}},
  "dgx-h100", 128, dense_strats)

twin("deepseek-v3 strata.layers (MLA, dense then MoE, MTP)", "deepseek-v3",
  strata.layers{name = "DeepSeek-V3", hidden_size = 7168, vocab_size = 129280, hidden_act = "silu",
    tie_word_embeddings = false, num_attention_heads = 128,
    q_lora_rank = 1536, kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128,
    num_experts_per_tok = 8, moe_intermediate_size = 2048, n_shared_experts = 1,
    strata.mla{layers = 3, intermediate_size = 18432},
    strata.mla{layers = 58, n_routed_experts = 256},
    strata.mla{layers = 1, n_routed_experts = 256, mtp = true}},
  "h800", 2048,
  {{tp = 1, pp = 16, ep = 64, sp = false, global_batch = 15360, seq_length = 4096, schedule = "dualpipe"},
   {tp = 8, pp = 8, ep = 32, global_batch = 4096, seq_length = 4096, recompute = "full", zero = 1}})

-- the preset itself round-trips through its blocks
local ds = strata.preset("deepseek-v3")
local rebuilt = strata.layers{name = ds.name, hidden_size = ds.hidden_size, vocab_size = ds.vocab_size,
  hidden_act = "silu", tie_word_embeddings = false, table.unpack(ds:blocks())}
twin("deepseek-v3 rebuilt from model:blocks()", "deepseek-v3", rebuilt, "h800", 2048,
  {{tp = 1, pp = 16, ep = 64, sp = false, global_batch = 15360, seq_length = 4096, schedule = "dualpipe"}})

-- a model built by strata.model from the Mixtral keys
twin("mixtral-8x7b strata.model", "mixtral-8x7b",
  strata.model{name = "Mixtral-8x7B-v0.1", hidden_size = 4096, intermediate_size = 14336, num_hidden_layers = 32,
    num_attention_heads = 32, num_key_value_heads = 8, vocab_size = 32000, hidden_act = "silu",
    tie_word_embeddings = false, num_local_experts = 8, num_experts_per_tok = 2},
  "dgx-h100", 256, {{tp = 2, pp = 4, ep = 8, global_batch = 1024, seq_length = 4096}})

-- blocks that set hidden_size and hidden_act to the model's own evaluate as blocks that do not
twin("llama3-8b strata.layers, every block with hidden_size 4096 and hidden_act silu", "llama3-8b",
  strata.layers{name = "Llama-3-8B", hidden_size = 4096, vocab_size = 128256, hidden_act = "silu",
    tie_word_embeddings = false, num_attention_heads = 32, num_key_value_heads = 8,
    strata.dense{layers = 32, hidden_size = 4096, hidden_act = "silu", intermediate_size = 14336}},
  "dgx-h100", 128, dense_strats)
twin("deepseek-v3 strata.layers, every block with hidden_size 7168", "deepseek-v3",
  strata.layers{name = "DeepSeek-V3", hidden_size = 7168, vocab_size = 129280, hidden_act = "silu",
    tie_word_embeddings = false, num_attention_heads = 128,
    q_lora_rank = 1536, kv_lora_rank = 512, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128,
    num_experts_per_tok = 8, moe_intermediate_size = 2048, n_shared_experts = 1,
    strata.mla{layers = 3, hidden_size = 7168, intermediate_size = 18432},
    strata.mla{layers = 58, hidden_size = 7168, n_routed_experts = 256},
    strata.mla{layers = 1, hidden_size = 7168, n_routed_experts = 256, mtp = true}},
  "h800", 2048,
  {{tp = 8, pp = 8, ep = 32, global_batch = 4096, seq_length = 4096, recompute = "full", zero = 1}})

-- a model of two widths (a ViT encoder in front of a decoder) rebuilt from model:blocks()
local vlm = strata.layers{name = "vlm", hidden_size = 4096, vocab_size = 128256, hidden_act = "silu",
  tie_word_embeddings = false,
  strata.dense{layers = 24, hidden_size = 1024, hidden_act = "gelu", num_attention_heads = 16, intermediate_size = 4096},
  strata.dense{layers = 32, num_attention_heads = 32, num_key_value_heads = 8, intermediate_size = 14336}}
twin("vlm (two widths) rebuilt from model:blocks()", vlm,
  strata.layers{name = vlm.name, hidden_size = vlm.hidden_size, vocab_size = vlm.vocab_size, hidden_act = "silu",
    tie_word_embeddings = false, table.unpack(vlm:blocks())},
  "dgx-h100", 64,
  {{tp = 4, pp = 2, global_batch = 256, seq_length = 4096, stage_layers = {36, 20}},
   {tp = 2, pp = 4, vpp = 2, schedule = "interleaved", global_batch = 256, zero = 3, recompute = "full"}})
