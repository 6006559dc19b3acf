string.find(string.rep("(", 1000000), "%b()")
