-- max_micro_batch.lua: the largest micro-batch that fits the memory budget.
--
--   strata run lua/max_micro_batch.lua [model] [cluster] [devices] [recompute]
--
-- Tries every micro-batch size that divides the per-replica batch, smallest first, and
-- keeps the last one whose busiest stage fits. Peak memory grows with the micro-batch (the
-- activations of every micro-batch in flight), so the first one that does not fit ends
-- the walk. Returns the plan with that micro-batch.

local model = arg[1] or "llama3-8b"
local cluster = arg[2] or "dgx-a100-80g"
local devices = tonumber(arg[3] or "32")
local recompute = arg[4] or "selective"

local plan = strata.plan{model = model, cluster = cluster, devices = devices,
  strategy = {tp = 4, pp = 2, global_batch = 1024, seq_length = 4096, recompute = recompute}}
local per_replica = plan.strategy.global_batch // plan.strategy.dp

print(string.format("%s, %s, %d devices (dp %d, tp 4, pp 2), %s recompute, budget %.1f GiB",
  model, cluster, devices, plan.strategy.dp, recompute, plan.budget_gib))
print("micro_batch  peak GiB  fits  step s     MFU")
local best, best_r
for mbs = 1, per_replica do
  if per_replica % mbs == 0 then
    local r = strata.eval(plan, {micro_batch = mbs})
    if not r.valid then error("micro_batch " .. mbs .. ": " .. r.error) end
    print(string.format("%11d %9.2f  %-5s %6.3f  %5.1f%%", mbs, r.memory.peak_gib,
      tostring(r.memory.fits), r.time.step_s, 100 * r.throughput.mfu))
    if not r.memory.fits then break end
    best, best_r = mbs, r
  end
end
if not best then error("even micro_batch 1 does not fit") end
print(string.format("largest micro-batch that fits: %d (peak %.2f GiB of %.1f GiB)", best,
  best_r.memory.peak_gib, best_r.memory.budget_gib))
return plan:with{micro_batch = best}
