-- zero_levels.lua: what each ZeRO level saves in memory and costs in time.
--
--   strata run lua/zero_levels.lua [model] [cluster] [devices]
--
-- Same strategy at ZeRO 0 (replicated optimizer), 1 (optimizer states sharded over DP),
-- 2 (+ gradients) and 3 (+ parameters, FSDP-style). Model states per device fall at each
-- level; the price is DP communication (parameter all-gathers at level 3).

local model = arg[1] or "llama3-8b"
local cluster = arg[2] or "dgx-h100"
local devices = tonumber(arg[3] or "64")

local plan = strata.plan{model = model, cluster = cluster, devices = devices,
  strategy = {tp = 2, pp = 1, global_batch = 512, seq_length = 4096, recompute = "selective"}}

print(string.format("%s on %d x %s, dp %d tp 2", model, devices, cluster, plan.strategy.dp))
print("zero  weights  grads  optimizer  states  peak GiB  fits   dp comm s  step s    MFU")
local rows = {}
for z = 0, 3 do
  local r = strata.eval(plan, {zero = z})
  local st = r.memory.stages[1]
  local states = st.weights_gib + st.grads_gib + st.optimizer_gib
  rows[#rows + 1] = {zero = z, states = states, r = r}
  print(string.format("%4d %8.2f %6.2f %10.2f %7.2f %9.2f  %-5s %10.4f %7.3f %5.1f%%", z, st.weights_gib,
    st.grads_gib, st.optimizer_gib, states, r.memory.peak_gib, tostring(r.memory.fits), r.time.dp_s,
    r.time.step_s, 100 * r.throughput.mfu))
end
local best = rows[1]
for _, row in ipairs(rows) do
  if row.r.memory.fits and (not best.r.memory.fits or row.r.time.step_s < best.r.time.step_s) then best = row end
end
print(string.format("fastest that fits: ZeRO %d (%.3f s per step); ZeRO 3 keeps %.1f%% of ZeRO 0's model states",
  best.zero, best.r.time.step_s, 100 * rows[4].states / rows[1].states))
return plan:with{zero = best.zero}
