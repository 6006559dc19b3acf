print(tostring(strata.eval), strata, {}, print, string.format("%s %s", strata.plan, {}), pcall(string.format, "%p", {}))
