-- golden_dense.lua: the plan of tests/golden/dense.yaml, written as Lua tables (inline model
-- and cluster, same keys), evaluated, and printed one "path<TAB>value" per line with full
-- precision. tests/cli/lua.sh compares it with `strata eval tests/golden/dense.yaml --json`:
-- the same keys, the same numbers.
local plan = strata.plan{
  model = {name = "Golden Llama 8B", hidden_size = 4096, intermediate_size = 14336, num_hidden_layers = 32,
           num_attention_heads = 32, num_key_value_heads = 8, vocab_size = 128256, hidden_act = "silu",
           tie_word_embeddings = false},
  cluster = {name = "Golden A100",
             device = {name = "GOLDEN-A100-80GB", memory_gib = 80, peak_tflops = {bf16 = 312, fp16 = 312, fp8 = 0},
                       hbm_gbps = 2039},
             node = {devices = 8, link_gbps = 300},
             network = {link_gbps = 25, latency_us = 5},
             efficiency = {gemm = 0.57, gemm_half = 64, fp8_gemm = 0.35, flash = 0.4, grouped_gemm = 0.7, hbm = 0.7,
                           coll_intra = 0.75, coll_inter = 0.8, dp_overlap = 0.8, tp_overlap = 0.6, contention = 0.2,
                           step_ms = 0, layer_us = 20, reserve_gib = 4, context_gib = 0.6, alloc_frag = 0.08}},
  devices = 16,
  strategy = {dp = 4, tp = 2, pp = 2, zero = 1, sp = true, micro_batch = 1, global_batch = 64, seq_length = 4096,
              recompute = "selective", schedule = "1f1b", precision = "bf16", flash_attention = true},
}
local function walk(v, path)
  if type(v) == "table" then
    for k, x in pairs(v) do walk(x, path == "" and tostring(k) or path .. "." .. tostring(k)) end
  elseif type(v) == "number" then
    print(path .. "\t" .. string.format("%.17g", v))
  else
    print(path .. "\t" .. tostring(v))
  end
end
walk(strata.eval(plan), "")
