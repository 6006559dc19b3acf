string.rep("a", 5000):find(".-.-.-.-b")
