-- max_micro_batch.lua: the largest micro-batch that fits the memory budget.
--
--   strata run lua/max_micro_batch.lua [model] [cluster] [devices] [recompute]
--   strata run --plan PLAN.yaml lua/max_micro_batch.lua     (tunes that plan)
--   in the explorer: L, max_micro_batch                      (tunes the plan on screen)
--
-- With no arguments it tunes strata.current(), the plan it was started on (the explorer's
-- plan on screen, or --plan's), when there is one; else it builds the plan from the
-- arguments.
--
-- Tries every micro-batch size that divides the per-replica batch, smallest first, and
-- keeps the last one whose busiest stage fits. Peak memory grows with the micro-batch (the
-- activations of every micro-batch in flight), so the first one that does not fit ends
-- the walk. Returns the plan with that micro-batch.

local plan = (arg[1] == nil) and strata.current() or nil
if not plan then
  plan = strata.plan{model = arg[1] or "llama3-8b", cluster = arg[2] or "dgx-a100-80g",
    devices = tonumber(arg[3] or "32"),
    strategy = {tp = 4, pp = 2, global_batch = 1024, seq_length = 4096, recompute = arg[4] or "selective"}}
end
local s = plan.strategy
local per_replica = s.global_batch // s.dp

print(string.format("%s, %s recompute, budget %.1f GiB", tostring(plan), s.recompute, plan.budget_gib))
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
