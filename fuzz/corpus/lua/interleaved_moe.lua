-- interleaved_moe.lua: alternating dense and MoE layers with FFN widths that change with
-- depth -- a layout the Hugging Face keys cannot express (moe_layer_freq only puts MoE
-- layers at l % freq == 0, and intermediate_size is one number).
--
--   strata run lua/interleaved_moe.lua [devices]
--
-- 48 layers of width 5120: odd layers MoE (64 experts, top-2, expert MLP 4096, one shared
-- expert), even layers dense, whose MLP grows from 8192 in the first third to 16384 in the
-- last. Four distinct layer shapes, well under the core's limit of eight.

local devices = tonumber(arg[1] or "256")

local blocks = {}
for l = 0, 47 do
  if l % 2 == 1 then
    blocks[#blocks + 1] = strata.moe{n_routed_experts = 64, num_experts_per_tok = 2,
                                     moe_intermediate_size = 4096, n_shared_experts = 1}
  else
    local third = l * 3 // 48
    blocks[#blocks + 1] = strata.dense{intermediate_size = ({8192, 12288, 16384})[third + 1]}
  end
end

local model = strata.layers{
  name = "interleaved-moe-48l", hidden_size = 5120, vocab_size = 202048,
  hidden_act = "silu", tie_word_embeddings = false,
  num_attention_heads = 40, num_key_value_heads = 8,
  table.unpack(blocks)
}
print(string.format("model %s: %d layers, %.1f B parameters (%.1f B active), %d layer shapes",
  model.name, model.layers, model.params_b, model.active_params_b, model.kinds))

local plan = strata.plan{model = model, cluster = "dgx-h100", devices = devices,
  strategy = {tp = 4, pp = 4, ep = 8, global_batch = 1024, seq_length = 8192, recompute = "selective"}}
local r = strata.eval(plan)
print(string.format("%s: peak %.1f GiB, step %.2f s, MFU %.1f%%, ep comm %.3f s",
  tostring(plan), r.memory.peak_gib, r.time.step_s, 100 * r.throughput.mfu, r.time.ep_s))
return model
