-- vlm.lua: a vision-language model that no preset has, defined layer by layer.
--
--   strata run lua/vlm.lua [cluster] [devices]
--
-- A ViT-L/14-class vision encoder (24 layers, width 1024, 16 heads of 64, MLP 4096, GELU,
-- LayerNorm) in front of a Llama-3-8B-class decoder (32 layers, width 4096, GQA 32/8 heads,
-- SwiGLU MLP 14336, RMSNorm). Each block carries its own hidden_size and hidden_act, so the
-- encoder's matrices, FLOPs, activations and TP/SP traffic are priced at width 1024 and its
-- MLP has two matrices, the decoder's at width 4096 with three. The embedding and the LM
-- head have the model's hidden_size (the decoder's).
--
-- image_tokens makes the first block a vision encoder (docs/cost-model.md, "Vision
-- encoder"): it sees 2 images of 576 patches (336-pixel CLIP images) per sample instead of
-- the text sequence, attends both ways within one image, carries biases, and holds
-- LLaVA-1.5's projector (1024 -> 4096 -> 4096, 21 M parameters) spread over its layers.
-- Left out: the patch embedding (about 0.6 M parameters).

local cluster = arg[1] or "dgx-h100"
local devices = tonumber(arg[2] or "64")

local vlm = strata.layers{
  name = "vlm-8b-vitl",
  hidden_size = 4096, vocab_size = 128256, hidden_act = "silu", tie_word_embeddings = false,
  strata.dense{layers = 24, hidden_size = 1024, hidden_act = "gelu",
               num_attention_heads = 16, num_key_value_heads = 16, intermediate_size = 4096,
               image_tokens = 576, images_per_sample = 2, projector_intermediate_size = 4096}, -- vision encoder
  strata.dense{layers = 32, num_attention_heads = 32, num_key_value_heads = 8,
               intermediate_size = 14336},                                                -- language decoder
}

print(string.format("model %s: %d layers, %.2f B parameters, %d layer shapes",
  vlm.name, vlm.layers, vlm.params_b, vlm.kinds))
for i, b in ipairs(vlm:blocks()) do
  print(string.format("  block %d: %-5s x%-2d width %4d  heads %2d/%-2d of %3d  mlp %5d %s", i, b.block,
    b.layers, b.hidden_size or vlm.hidden_size, b.num_attention_heads, b.num_key_value_heads, b.head_dim,
    b.intermediate_size, b.hidden_act or (vlm.gated and "silu" or "gelu")))
end

-- An encoder layer costs a fraction of a decoder layer, so an even split by layer count
-- (28 + 28) leaves the first stage idle: take the split with the shortest step.
local strategy = {tp = 4, pp = 2, global_batch = 256, seq_length = 4096, recompute = "selective"}
local plan = strata.plan{model = vlm, cluster = cluster, devices = devices, strategy = strategy}
local even = strata.eval(plan)
local best, best_first = even, nil
for first = 24, vlm.layers - 1 do
  local r = strata.eval(plan, {stage_layers = {first, vlm.layers - first}})
  if r.valid and r.time.step_s < best.time.step_s then best, best_first = r, first end
end
if best_first then
  plan = plan:with{strategy = {stage_layers = {best_first, vlm.layers - best_first}}}
  print(string.format("stage split: %d + %d layers (even 28 + 28: step %.3f s)", best_first,
    vlm.layers - best_first, even.time.step_s))
end
local r = strata.eval(plan)
print(string.format("%s: valid %s, peak %.1f GiB of %.1f, step %.3f s, MFU %.1f%%",
  tostring(plan), tostring(r.valid), r.memory.peak_gib, r.memory.budget_gib, r.time.step_s,
  100 * r.throughput.mfu))

-- what the vision tower adds to the decoder alone on the same job
local dec = strata.eval(strata.plan{model = "llama3-8b", cluster = cluster, devices = devices,
  strategy = strategy})
print(string.format("the encoder adds %.2f B parameters, %.1f%% step time and %.1f GiB peak memory " ..
  "to %s (2 x 576 patches per sample beside %d text and image tokens)",
  vlm.params_b - strata.preset("llama3-8b").params_b, 100 * (r.time.step_s / dec.time.step_s - 1),
  r.memory.peak_gib - dec.memory.peak_gib, "llama3-8b", strategy.seq_length))
return plan
