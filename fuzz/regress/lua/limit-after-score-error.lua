-- Found by make fuzz (a mutant of tests/lua/lazy.lua): a score function failed with an
-- ordinary error (a misspelt field) while the fuzz target's 20 ms ran out as the search
-- unwound. The run ends with the score's error, and must not claim a limit stopped it.
local p = strata.plan{model = "llama3-8b", cluster = "dgx-h100", devices = 16,
  strategy = {global_batch = 64, seq_length = 4096}}
local n = 0
strata.search(p, {top = 3, score = function(r)
  n = n + 1
  if n % 7 == 0 then return #r.time.states end
  return 1
end})
