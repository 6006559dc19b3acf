-- lazy.lua: the per-stage lists a score function sees are built on first read and equal
-- those of strata.eval for the same strategy (through #, ipairs, indexing and pairs).
local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 16,
  strategy = {global_batch = 64, seq_length = 4096}}
local function deep(a, b)
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not deep(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local seen, bad, n = 0, 0, 0
strata.search(p, {top = 3, score = function(r)
  n = n + 1
  if n % 7 == 0 then
    local s = r.strategy
    local e = strata.eval(p, {tp = s.tp, pp = s.pp, cp = s.cp, dp = s.dp, zero = s.zero,
      micro_batch = s.micro_batch, recompute = s.recompute, sp = s.sp, ep = s.ep, vpp = s.vpp,
      schedule = s.schedule, cp_kind = s.cp_kind, etp = s.etp, cp_ulysses = s.cp_ulysses})
    local how = n % 4
    local ok
    if how == 0 then ok = #r.memory.stages == s.pp and #r.time.stages == s.pp
    elseif how == 1 then ok = r.memory.stages[s.pp].total_gib == e.memory.stages[s.pp].total_gib
    elseif how == 2 then
      local c = 0
      for i, st in ipairs(r.time.stages) do c = c + 1; ok = (st.fwd_s == e.time.stages[i].fwd_s) end
      ok = ok and c == s.pp
    else ok = deep(r, e) end
    seen = seen + 1
    if not ok then bad = bad + 1 end
  end
  return r.throughput.tokens_per_s
end})
print(string.format("%s lazy stage lists: %d checked, %d differ", bad == 0 and seen > 20 and "PASS" or "FAIL", seen, bad))
