string.rep("", math.maxinteger)
