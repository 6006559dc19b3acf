-- sweep_seq.lua: MFU against sequence length, as CSV on stdout.
--
--   strata run lua/sweep_seq.lua [model] [cluster] [devices] > mfu.csv
--
-- One strategy (tp 8, pp 4, selective recompute) at 2K..64K tokens; context parallelism
-- grows with the sequence so that each rank keeps at most 8K tokens, and the global batch
-- shrinks so that every step holds the same number of tokens (4M). Rows that do not fit
-- are kept with fits = false: the point of a sweep is to see where it breaks.

local model = arg[1] or "llama3-70b"
local cluster = arg[2] or "dgx-h100"
local devices = tonumber(arg[3] or "512")
local tokens_per_step = 4 * 1024 * 1024

local base = strata.plan{model = model, cluster = cluster, devices = devices,
  strategy = {tp = 8, pp = 4, recompute = "selective", global_batch = 512, seq_length = 8192}}

print("seq_length,cp,global_batch,valid,fits,peak_gib,step_s,tokens_per_s,mfu")
local seq = 2048
while seq <= 65536 do
  local cp = math.max(1, seq // 8192)
  local r = strata.eval(base, {seq_length = seq, cp = cp, global_batch = tokens_per_step // seq})
  if r.valid then
    print(string.format("%d,%d,%d,true,%s,%.3f,%.4f,%.1f,%.4f", seq, cp, r.strategy.global_batch,
      tostring(r.memory.fits), r.memory.peak_gib, r.time.step_s, r.throughput.tokens_per_s,
      r.throughput.mfu))
  else
    print(string.format("%d,%d,%d,false,false,,,,", seq, cp, tokens_per_step // seq))
  end
  seq = seq * 2
end
