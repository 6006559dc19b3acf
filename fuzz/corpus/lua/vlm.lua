-- vlm.lua: a vision-language model that no preset has, defined layer by layer.
--
--   strata run lua/vlm.lua [cluster] [devices]
--
-- A ViT-L/14-class vision encoder (24 layers, width 1024, MLP 4096, GELU) in front of a
-- Llama-3-8B-class decoder (32 layers, width 4096, SwiGLU MLP 14336, GQA 32/8 heads).
--
-- The core describes every layer at the model's hidden size with one MLP type (model.h), so
-- the encoder layers are written as *cost-equivalent* decoder-width layers: the same
-- parameters and matmul FLOPs per token.
--   attention: 4*1024^2 = 4*4096*qd  ->  qd = 256 = the ViT's 16 heads, of 16 (MHA)
--   MLP: 2*1024*4096 (two matrices) = 3*4096*f (three, SwiGLU)  ->  f = 683
-- Activations are then counted at width 4096 (an overestimate for the encoder), and image
-- patches are priced as sequence tokens. Good enough to plan memory and parallelism; see
-- strata-lua(7), "Limits of the model description".

local cluster = arg[1] or "dgx-h100"
local devices = tonumber(arg[2] or "64")

local vit_width, vit_mlp, width = 1024, 4096, 4096
local enc_qdim = vit_width * vit_width // width          -- 256
local enc_mlp = (2 * vit_width * vit_mlp + 3 * width // 2) // (3 * width) -- 683 (rounded)

local vlm = strata.layers{
  name = "vlm-8b-vitl",
  hidden_size = width, vocab_size = 128256, hidden_act = "silu", tie_word_embeddings = false,
  strata.dense{layers = 24, num_attention_heads = 16, num_key_value_heads = 16,
               head_dim = enc_qdim // 16, intermediate_size = enc_mlp},          -- vision encoder
  strata.dense{layers = 2, num_attention_heads = 32, num_key_value_heads = 32,
               intermediate_size = width},                                       -- projector
  strata.dense{layers = 32, num_attention_heads = 32, num_key_value_heads = 8,
               intermediate_size = 14336},                                       -- language decoder
}

print(string.format("model %s: %d layers, %.2f B parameters, %d layer shapes",
  vlm.name, vlm.layers, vlm.params_b, vlm.kinds))
for i, b in ipairs(vlm:blocks()) do
  print(string.format("  block %d: %-5s x%-2d heads %2d/%-2d ffn %5d", i, b.block, b.layers,
    b.num_attention_heads, b.num_key_value_heads, b.intermediate_size))
end

local plan = strata.plan{model = vlm, cluster = cluster, devices = devices,
  strategy = {tp = 4, pp = 2, global_batch = 256, seq_length = 4096, recompute = "selective"}}
local r = strata.eval(plan)
print(string.format("%s: valid %s, peak %.1f GiB of %.1f, step %.3f s, MFU %.1f%%",
  tostring(plan), tostring(r.valid), r.memory.peak_gib, r.memory.budget_gib, r.time.step_s,
  100 * r.throughput.mfu))
return plan
