return strata.eval(strata.plan{model="llama3-8b", cluster="dgx-h100", devices=8, strategy={tp=2, pp=1}})
